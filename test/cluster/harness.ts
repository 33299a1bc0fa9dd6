import { afterAll, beforeAll, onTestFinished } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStoreWithExtras, type SharedRequest } from "../../src/index.ts";
import { connectHocuspocus, type HocuspocusConnection } from "../../src/hocuspocus/index.ts";
import { startCluster, type Cluster } from "../../server/cluster/cluster.ts";
import { CountingHost } from "./http-host.ts";

/**
 * One cluster (Redis + Postgres + 2 Hocuspocus instances, each a process) and one counting HTTP
 * host per test file, started before its tests and stopped after them. Missing redis-server or
 * postgresql fails the file with a message saying what to install; nothing is skipped.
 */
export function useCluster(): { cluster(): Cluster; host(): CountingHost } {
  let cluster: Cluster | undefined;
  let host: CountingHost | undefined;
  beforeAll(async () => {
    host = await CountingHost.start();
    cluster = await startCluster();
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
