import { fileURLToPath } from "node:url";
import { killHard, spawnUntil, type Child } from "./child.ts";
import { createDocumentsTable } from "./pg-documents.ts";
import { freePort } from "./ports.ts";
import { startPostgres, type PostgresProcess } from "./postgres.ts";
import { startRedis, type RedisProcess } from "./redis.ts";
import { DEMO_SECRET, roomToken } from "./tokens.ts";

/** The instance's script and the directory it runs in (tsx resolves from there). */
export const INSTANCE = fileURLToPath(new URL("./instance.ts", import.meta.url));
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The environment instance.ts reads (see its header): this process's, plus the instance's own. */
export function instanceEnv(o: { name: string; port: number; redisPort: number; databaseUrl: string; secret: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NAME: o.name,
    PORT: String(o.port),
    REDIS_PORT: String(o.redisPort),
    DATABASE_URL: o.databaseUrl,
    ROOM_SECRET: o.secret,
  };
}

export type ClusterOptions = {
  /** Hocuspocus instances on one Redis and one Postgres (default 2). */
  instances?: number;
  /** Signs room tokens (default DEMO_SECRET: local use only). */
  secret?: string;
  /** Where instance output goes (default: kept, shown only in errors). */
  log?: (line: string) => void;
};

export type Cluster = {
  /** ws:// URL of each instance, in order. */
  urls: string[];
  /** The token a client needs for `room` on this cluster. */
  token(room: string): string;
  redis: RedisProcess;
  postgres: PostgresProcess;
  /** SIGKILL instance `i`: its clients see their socket drop, nothing is said to anyone. */
  killInstance(i: number): Promise<void>;
  /** Starts instance `i` again on its port. */
  startInstance(i: number): Promise<void>;
  /** Every process killed (instances SIGKILL, Redis FLUSHALL then SIGKILL, Postgres crashed). */
  crashAll(): Promise<void>;
  /** Everything started again on the same ports and data folder. */
  restartAll(): Promise<void>;
  /** Orderly stop of everything; removes the Postgres folder. Idempotent. */
  stop(): Promise<void>;
};

/** Redis + PostgreSQL + N Hocuspocus instances on 127.0.0.1, each a process of its own. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.instances ?? 2;
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`startCluster: \`instances\` must be a positive integer, got ${count}`);
  const secret = options.secret ?? DEMO_SECRET;
  let redis = await startRedis();
  let postgres: PostgresProcess | undefined;
  const children: (Child | undefined)[] = [];
  try {
    postgres = await startPostgres();
    await createDocumentsTable(postgres.connectionString);
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    const pg = postgres;

    const startInstance = async (i: number): Promise<void> => {
      if (children[i] !== undefined) throw new Error(`startCluster: instance ${i} is already running`);
      const env = instanceEnv({
        name: `hocuspocus-${i}`,
        port: ports[i]!,
        redisPort: redis.port,
        databaseUrl: pg.connectionString,
        secret,
      });
      const child = await spawnUntil(
        `hocuspocus instance ${i}`,
        process.execPath,
        ["--import", "tsx", INSTANCE],
        /listening on ws:\/\/\S+/,
        { cwd: ROOT, env },
      );
      if (options.log) {
        const log = options.log;
        log(child.output().trimEnd());
        child.process.stdout?.on("data", (chunk: Buffer) => log(chunk.toString("utf8").trimEnd()));
        child.process.stderr?.on("data", (chunk: Buffer) => log(chunk.toString("utf8").trimEnd()));
      }
      children[i] = child;
      void child.exited.then(() => {
        if (children[i] === child) children[i] = undefined;
      });
    };
    const killInstance = async (i: number): Promise<void> => {
      const child = children[i];
      children[i] = undefined;
      if (child) await killHard(child);
    };
    const indexes = [...ports.keys()];
    await Promise.all(indexes.map(startInstance));

    let stopped = false;
    return {
      urls: ports.map((port) => `ws://127.0.0.1:${port}`),
      token: (room) => roomToken(secret, room),
      get redis() {
        return redis;
      },
      postgres: pg,
      killInstance,
      startInstance,
      async crashAll() {
        await Promise.all(indexes.map(killInstance));
        redis.flushAll();
        await redis.kill();
        pg.crash();
      },
      async restartAll() {
        pg.start();
        redis = await startRedis(redis.port);
        await Promise.all(indexes.filter((i) => children[i] === undefined).map(startInstance));
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await Promise.all(children.map((child) => (child ? stopInstance(child) : undefined)));
        await redis.kill();
        pg.destroy();
      },
    };
  } catch (error) {
    await Promise.all(children.map((child) => child && killHard(child)));
    await redis.kill();
    postgres?.destroy();
    throw error;
  }
}

/**
 * SIGTERM (the instance stores what is pending), SIGKILL should it not exit within 2 s after its
 * own SHUTDOWN_TIMEOUT_MS (default 10 s), at which it names the rooms it could not save.
 */
async function stopInstance(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill("SIGTERM");
  const cap = Number(process.env.SHUTDOWN_TIMEOUT_MS || 10_000) + 2000;
  const timer = setTimeout(() => child.process.kill("SIGKILL"), cap);
  await child.exited;
  clearTimeout(timer);
}
