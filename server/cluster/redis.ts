import { spawnSync } from "node:child_process";
import { freePort } from "./ports.ts";
import { killHard, requireBinary, spawnUntil, type Child } from "./child.ts";

const REDIS = "/usr/bin/redis-server";
const REDIS_CLI = "/usr/bin/redis-cli";

export type RedisProcess = { port: number; flushAll(): void; kill(): Promise<void> };

/**
 * A throwaway Redis on 127.0.0.1: no persistence (`--save ''`, no AOF), because in this cluster
 * Redis only carries pub/sub between instances and locks; documents live in Postgres.
 */
export async function startRedis(port?: number): Promise<RedisProcess> {
  requireBinary(REDIS, "redis-server");
  const chosen = port ?? (await freePort());
  const child: Child = await spawnUntil(
    `redis-server on port ${chosen}`,
    REDIS,
    ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
    /Ready to accept connections/,
    // Its own process group: a terminal's Ctrl-C reaches only main.ts, which stops the instances
    // (they store what is pending and leave Redis) before it stops Redis. Killed on exit anyway.
    { detached: true },
  );
  return {
    port: chosen,
    flushAll() {
      const result = spawnSync(REDIS_CLI, ["-h", "127.0.0.1", "-p", String(chosen), "FLUSHALL"], { encoding: "utf8" });
      if (result.status !== 0 || !/OK/.test(result.stdout)) throw new Error(`redis FLUSHALL failed: ${result.stdout}${result.stderr}`);
    },
    kill: () => killHard(child),
  };
}
