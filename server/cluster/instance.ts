/**
 * One Hocuspocus 3.4.4 instance of the cluster, run as a child process (so that tests can SIGKILL
 * it). Configured by environment: PORT, REDIS_PORT, DATABASE_URL, ROOM_SECRET, NAME, and
 * STORE_DEBOUNCE_MS (default 250: how long changes wait before they are written to Postgres; a
 * crash loses at most that much, the peers still hold it and sync it back).
 * Prints "hocuspocus NAME listening on ws://127.0.0.1:PORT" once it accepts connections.
 */
import { Server } from "@hocuspocus/server";
import { postgresDocuments } from "./pg-documents.ts";
import { ClusterRedis } from "./redis-extension.ts";
import { isRoomToken } from "./tokens.ts";

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`hocuspocus instance: environment variable ${name} is required`);
  return value;
}

const name = process.env.NAME ?? "hocuspocus";
const port = Number(env("PORT"));
const secret = env("ROOM_SECRET");
const debounce = Number(process.env.STORE_DEBOUNCE_MS ?? 250);

const redis = new ClusterRedis({ host: "127.0.0.1", port: Number(env("REDIS_PORT")), prefix: "shared-fetch" });
const documents = await postgresDocuments(env("DATABASE_URL"));
const server = new Server({
  name,
  port,
  address: "127.0.0.1",
  quiet: true,
  stopOnSignals: false,
  debounce,
  maxDebounce: debounce * 8,
  extensions: [redis, documents.extension],
  async onAuthenticate({ token, documentName }) {
    // A thrown error refuses the client: it gets `permission-denied` and never this room's data,
    // and the instance ignores whatever it sends for the room.
    if (!isRoomToken(secret, documentName, token)) throw new Error(`no valid token for room ${documentName}`);
  },
});

// Fix (b): listen only once both Redis connections are ready, or a client that connects at once
// may lose the room's first write.
await redis.ready();
await server.listen();
console.log(`hocuspocus ${name} listening on ws://127.0.0.1:${server.address.port}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 3000).unref(); // never hang the caller
  await server.destroy(); // stores what is pending, then the extensions close Redis
  await documents.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
