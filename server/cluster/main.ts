/**
 * `npm run server:cluster`: Redis, PostgreSQL and two Hocuspocus instances on 127.0.0.1, in a
 * temporary folder, until Ctrl-C. Prints the instance URLs and how to get a room's token.
 * ROOM_SECRET (at least 16 characters) overrides the demo secret; INSTANCES the number of instances.
 */
import { startCluster } from "./cluster.ts";
import { integerEnv, secretEnv } from "./config.ts";
import { DEMO_SECRET } from "./tokens.ts";

const secret = secretEnv("ROOM_SECRET", DEMO_SECRET);
const instances = integerEnv("INSTANCES", { min: 1, fallback: 2 });

// Installed before anything starts: the children's exit hook (child.ts) then leaves SIGINT and
// SIGTERM to this orderly stop instead of killing them outright. Ctrl-C during the start exits,
// and the exit hook still stops what had started.
const started: { cluster?: Awaited<ReturnType<typeof startCluster>> } = {};
let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (!started.cluster) process.exit(130);
  await started.cluster.stop();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

const cluster = (started.cluster = await startCluster({ instances, secret, log: (line) => console.log(`  ${line}`) }));
console.log(`redis on 127.0.0.1:${cluster.redis.port}, postgres on ${cluster.postgres.connectionString}`);
for (const url of cluster.urls) console.log(`hocuspocus instance: ${url}`);
console.log(
  `token for room "demo": ${cluster.token("demo")}  (hex HMAC-SHA256 of the room name with ${secret === DEMO_SECRET ? "the demo secret" : "ROOM_SECRET"})`,
);
console.log("Ctrl-C stops everything and removes the data folder.");
