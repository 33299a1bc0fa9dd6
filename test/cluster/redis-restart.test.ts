/**
 * README, Scaling out: "the instances relay each room's updates and presence through Redis
 * pub/sub" and "Redis holds nothing durable". Pinned here across a Redis restart: changes made
 * while it was down reach the peers on the other instance once it is back, with no new write, and
 * reach Postgres, merged; and an instance stopped while Redis is down still stores and exits 0.
 */
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { startRedis, type RedisProcess } from "../../server/cluster/redis.ts";
import { until } from "../sync/wait.ts";
import { docPeer, extraInstance, peersOnBothInstances, storedMap, uniqueRoom, untilAcked, untilStored, useCluster } from "./harness.ts";

let restarted: RedisProcess | undefined; // the cluster stops only the Redis it started
afterAll(() => restarted?.kill()); // registered first, so it runs after the cluster's stop
const env = useCluster();

/** Redis down while `during` runs and 1.5 s more, then up again on the same port. */
async function redisOutage(during: () => void): Promise<void> {
  const cluster = env.cluster();
  const port = cluster.redis.port;
  await (restarted ?? cluster.redis).kill();
  during();
  await new Promise((resolve) => setTimeout(resolve, 1500)); // an outage, not a blip: ioredis retries meanwhile
  restarted = await startRedis(port);
}

describe("a Redis restart under the cluster", () => {
  it("peers on the two instances converge on the writes made during the outage, with no new write", async () => {
    const cluster = env.cluster();
    const { a, b } = await peersOnBothInstances(cluster, "redis-converge");
    a.map.set("first", 1);
    await until(b.doc, "update", () => b.map.get("first") === 1);
    await redisOutage(() => {
      a.map.set("fromA", "during");
      b.map.set("fromB", "during");
    });
    await Promise.all([
      until(b.doc, "update", () => b.map.get("fromA") === "during"),
      until(a.doc, "update", () => a.map.get("fromB") === "during"),
    ]);
  });

  it("writes made through both instances while Redis is down all reach Postgres", async () => {
    const cluster = env.cluster();
    const { room, a, b } = await peersOnBothInstances(cluster, "redis-store");
    a.map.set("first", 1);
    await untilStored(cluster, room, (s) => s.first === 1);
    await redisOutage(() => {
      a.map.set("fromA", "during");
      b.map.set("fromB", "during");
    });
    await untilStored(cluster, room, (s) => s.fromA === "during" && s.fromB === "during");
    expect(await storedMap(cluster, room)).toEqual({ first: 1, fromA: "during", fromB: "during" });
  });

  it("SIGTERM while Redis is down: the instance stores what is pending and exits 0, well before SHUTDOWN_TIMEOUT_MS", async () => {
    const cluster = env.cluster();
    const inst = await extraInstance(cluster, "redis-down-stop", { SHUTDOWN_TIMEOUT_MS: "8000" });
    const room = uniqueRoom("redis-down-stop");
    const a = docPeer(cluster, room, [inst.url]);
    await a.conn.whenSynced;
    const port = cluster.redis.port;
    await (restarted ?? cluster.redis).kill();
    onTestFinished(async () => void (restarted = await startRedis(port))); // for the cluster's own stop
    a.map.set("k", "v");
    await untilAcked(a);
    const t0 = Date.now();
    inst.child.process.kill("SIGTERM");
    expect(await inst.child.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(await storedMap(cluster, room)).toEqual({ k: "v" });
  });
});
