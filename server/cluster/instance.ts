/**
 * One Hocuspocus 3.4.4 instance of the cluster, run as a child process (so that tests can SIGKILL
 * it). Configured by environment: PORT, REDIS_PORT, DATABASE_URL, ROOM_SECRET, NAME, and
 * STORE_DEBOUNCE_MS (default 250: how long changes wait before they are written to Postgres; a
 * crash loses at most that much, the peers still hold it and sync it back) and SHUTDOWN_TIMEOUT_MS
 * (default 10000: how long SIGTERM waits for pending stores before it exits 1, naming the rooms).
 * A bad value, or a Postgres without the documents table, stops it at start (config.ts).
 * Prints "hocuspocus NAME listening on ws://127.0.0.1:PORT" once it accepts connections.
 */
import { Server } from "@hocuspocus/server";
import { configError, integerEnv, portEnv, secretEnv, stringEnv } from "./config.ts";
import { checkDocumentsTable, postgresDocuments } from "./pg-documents.ts";
import { ClusterRedis } from "./redis-extension.ts";
import { isRoomToken } from "./tokens.ts";

const name = process.env.NAME ?? "hocuspocus";
// A safety net, not a way of working: an error a hook lets escape (e.g. out of Hocuspocus'
// debounce timer) is logged instead of killing the instance and every room it holds.
process.on("unhandledRejection", (reason) => console.error(`hocuspocus ${name}: unhandled rejection:`, reason));

const port = portEnv("PORT");
const redisPort = portEnv("REDIS_PORT");
const secret = secretEnv("ROOM_SECRET");
const debounce = integerEnv("STORE_DEBOUNCE_MS", { min: 0, fallback: 250 });
const shutdownTimeout = integerEnv("SHUTDOWN_TIMEOUT_MS", { min: 0, fallback: 10_000 });
const databaseUrl = stringEnv("DATABASE_URL");
await checkDocumentsTable(databaseUrl).catch((error: Error) => configError(`hocuspocus ${name}: ${error.message}`));

const redis = new ClusterRedis({ host: "127.0.0.1", port: redisPort, prefix: "shared-fetch" });
const documents = await postgresDocuments(databaseUrl);
const server = new Server({
  name,
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
await redis
  .ready()
  .catch((error: Error) =>
    configError(`hocuspocus ${name}: REDIS_PORT=${redisPort}: no Redis answers on 127.0.0.1:${redisPort} (${error.message})`),
  );
// Not server.listen(): Hocuspocus 3.4.4 hands net its `address` where net reads `host`, so it
// listened on every interface of the machine. No extension here has an onListen hook to miss.
await new Promise<void>((resolve, reject) => {
  server.httpServer.once("error", reject).listen(port, "127.0.0.1", () => {
    server.httpServer.off("error", reject);
    resolve();
  });
}).catch((error: NodeJS.ErrnoException) =>
  configError(`hocuspocus ${name}: PORT=${port}: ${error.code === "EADDRINUSE" ? `127.0.0.1:${port} is in use` : error.message}`),
);
console.log(`hocuspocus ${name} listening on ws://127.0.0.1:${server.address.port}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Never hang the caller, but never claim a clean exit either while a change is only in memory.
  // Not unref'd: an emptied event loop must not end the process with 0 before the cap.
  setTimeout(() => {
    const pending = [...server.hocuspocus.documents.keys()].filter((room) =>
      server.hocuspocus.debouncer.isDebounced(`onStoreDocument-${room}`),
    );
    const unsaved = [...new Set([...documents.unsaved(), ...pending])];
    console.error(
      unsaved.length > 0
        ? `hocuspocus ${name}: stores still pending after SHUTDOWN_TIMEOUT_MS=${shutdownTimeout}; exiting without saving room(s): ${unsaved.join(", ")}`
        : `hocuspocus ${name}: shutdown not finished after SHUTDOWN_TIMEOUT_MS=${shutdownTimeout} (no store pending); exiting`,
    );
    process.exit(1);
  }, shutdownTimeout);
  redis.drain(); // its clients move to another instance: they did not leave (redis-extension.ts, fix 7)
  await server.destroy(); // stores what is pending, then the extensions close Redis
  await documents.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
