import { afterAll, beforeAll, onTestFinished } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras, type SharedRequest } from "../../src/index.ts";
import { connectHocuspocus, type HocuspocusConnection } from "../../src/hocuspocus/index.ts";
import { killHard, spawnUntil, type Child } from "../../server/cluster/child.ts";
import { INSTANCE, instanceEnv, ROOT, startCluster, type Cluster, type ClusterOptions } from "../../server/cluster/cluster.ts";
import { readStoredDocument } from "../../server/cluster/pg-documents.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { DEMO_SECRET } from "../../server/cluster/tokens.ts";
import { until } from "../sync/wait.ts";
import { CountingHost } from "./http-host.ts";

/**
 * One cluster (Redis + Postgres + 2 Hocuspocus instances, each a process) and one counting HTTP
 * host per test file, started before its tests and stopped after them. Missing redis-server or
 * postgresql fails the file with a message saying what to install; nothing is skipped.
 */
export function useCluster(options: ClusterOptions = {}): { cluster(): Cluster; host(): CountingHost } {
  let cluster: Cluster | undefined;
  let host: CountingHost | undefined;
  beforeAll(async () => {
    host = await CountingHost.start();
    cluster = await startCluster(options);
  });
  afterAll(async () => {
    await cluster?.stop();
    await host?.close();
  });
  return {
    cluster: () => cluster ?? fail("cluster"),
    host: () => host ?? fail("host"),
  };
}

function fail(what: string): never {
  throw new Error(`the ${what} did not start (see beforeAll's error)`);
}

export type Peer = { doc: Y.Doc; conn: HocuspocusConnection; store: SharedFetchStoreWithExtras; stop(): void };

export const uniqueRoom = (prefix: string): string => `${prefix}-${Math.random().toString(36).slice(2)}`;

/**
 * A device: a doc synced through `urls` (in that order of preference) and a store on it, with a
 * fixed 50 ms settle window unless `sizedWindow` asks for the store's own (settle-window.ts).
 */
export function peer(
  cluster: Cluster,
  room: string,
  urls: string[],
  opts: { leaseMs?: number; token?: string; sizedWindow?: boolean } = {},
): Peer {
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { urls, room, token: opts.token ?? cluster.token(room), WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({
    doc,
    awareness: conn.awareness,
    leaseMs: opts.leaseMs ?? 5000,
    ...(opts.sizedWindow ? {} : { settleMs: 50 }),
  });
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    store.destroy();
    conn.destroy();
    doc.destroy();
  };
  onTestFinished(stop); // runs even when an assertion failed
  return { doc, conn, store, stop };
}

/** Resolves when `check` holds, re-checked on every store event for `req` (no sleeps). */
export function when(store: SharedFetchStoreWithExtras, req: SharedRequest, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const off = store.subscribe(req, () => {
      if (!check()) return;
      off();
      resolve();
    });
  });
}

/** A bare doc synced through `urls`, no store: for tests about what the servers keep of a doc. */
export function docPeer(cluster: Cluster, room: string, urls: string[]): Omit<Peer, "store"> & { map: Y.Map<unknown> } {
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { urls, room, token: cluster.token(room), WebSocketPolyfill: WebSocket });
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    conn.destroy();
    doc.destroy();
  };
  onTestFinished(stop);
  return { doc, conn, map: doc.getMap("m"), stop };
}

/** Two bare docs on a new room, one through each of the cluster's first two instances, both synced. */
export async function peersOnBothInstances(cluster: Cluster, prefix: string) {
  const room = uniqueRoom(prefix);
  const a = docPeer(cluster, room, [cluster.urls[0]!]);
  const b = docPeer(cluster, room, [cluster.urls[1]!]);
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
  return { room, a, b };
}

/** A bare doc synced through `urls`, whose `{ [key]: 1 }` has reached Postgres (the room's row exists). */
export async function storedPeer(cluster: Cluster, room: string, urls: string[], key = "first"): Promise<ReturnType<typeof docPeer>> {
  const peer = docPeer(cluster, room, urls);
  await peer.conn.whenSynced;
  peer.map.set(key, 1);
  await untilStored(cluster, room, (s) => s[key] === 1);
  return peer;
}

/** Map "m" of the room as stored in Postgres (undefined: no row, or Postgres is down). */
export async function storedMap(cluster: Cluster, room: string): Promise<Record<string, unknown> | undefined> {
  const doc = await readStoredDocument(cluster.postgres.connectionString, room).catch(() => undefined);
  return doc?.getMap("m").toJSON();
}

/** Resolves once `check` holds for what Postgres stores of the room. Postgres tells no one of a
 * write, so this polls (every 50 ms); the test's timeout bounds it. */
export async function untilStored(cluster: Cluster, room: string, check: (stored: Record<string, unknown>) => boolean): Promise<void> {
  for (;;) {
    const stored = await storedMap(cluster, room);
    if (stored !== undefined && check(stored)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves once the instance has acknowledged every update the peer sent. */
export const untilAcked = (p: { conn: HocuspocusConnection }): Promise<void> =>
  until(p.conn.provider, "unsyncedChanges", () => !p.conn.provider.hasUnsyncedChanges);

/** One more instance process on the cluster's Redis and Postgres, as cluster.ts starts its own;
 * `env` overrides its environment. SIGKILLed when the test ends. */
export async function extraInstance(
  cluster: Cluster,
  name: string,
  env: Record<string, string> = {},
): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = await spawnUntil(name, process.execPath, ["--import", "tsx", INSTANCE], /listening on ws:\/\/\S+/, {
    cwd: ROOT,
    env: {
      ...instanceEnv({ name, port, redisPort: cluster.redis.port, databaseUrl: cluster.postgres.connectionString, secret: DEMO_SECRET }),
      ...env,
    },
  });
  onTestFinished(() => killHard(child));
  return { child, url: `ws://127.0.0.1:${port}` };
}
