/**
 * README, Scaling out: a client that an instance cannot serve *for now* is told `unavailable` and
 * comes back after a back-off; only a refused token is final (`HocuspocusAuthError`, `onRefused`:
 * the app shows a sign-in). Pinned here for Redis: a room opened while Redis is down fails once
 * the instance gives up subscribing to it (ioredis' 20 retries, ≈ 10 s). Hocuspocus answers that
 * with the refused token's `permission-denied`, so the client stopped for good though its token was
 * valid; now it is told `unavailable`, and syncs with the other instances once Redis is back.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startRedis, type RedisProcess } from "../../server/cluster/redis.ts";
import { nextEvent, until } from "../sync/wait.ts";
import { docPeer, extraInstance, uniqueRoom, useCluster } from "./harness.ts";

let restarted: RedisProcess | undefined; // the cluster stops only the Redis it started
afterAll(() => restarted?.kill()); // registered first, so it runs after the cluster's stop
const env = useCluster({ instances: 1 });

describe("a room opened while Redis is down", () => {
  it("its client is told to come back, not refused for good; once Redis is back it syncs with a peer on another instance", async () => {
    const cluster = env.cluster();
    const other = await extraInstance(cluster, "redis-down-load");
    const room = uniqueRoom("redisload");
    const port = cluster.redis.port;
    await cluster.redis.kill();
    let up = false;
    try {
      const a = docPeer(cluster, room, [cluster.urls[0]!]);
      a.map.set("offline", 1);
      const [{ reason }] = await nextEvent<[{ reason: string }]>(a.conn.provider, "authenticationFailed");
      expect(reason).toMatch(/^unavailable/);
      expect(a.conn.error).toBeUndefined(); // not a HocuspocusAuthError: the app shows no sign-in
      restarted = await startRedis(port);
      up = true;
      await a.conn.whenSynced;
      const b = docPeer(cluster, room, [other.url]);
      await until(b.doc, "update", () => b.map.get("offline") === 1);
    } finally {
      if (!up) restarted = await startRedis(port);
    }
  }, 90_000);
});
