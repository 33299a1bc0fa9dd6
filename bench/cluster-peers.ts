import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type Connection, type SharedFetchStoreWithExtras } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";
import { PRESENCE_FIELD } from "../src/internals.ts";
import type { Cluster } from "../server/cluster/cluster.ts";
import type { SyncServer } from "../test/sync/ws-server.ts";

export type Contender = "hocuspocus-cluster" | "y-websocket";
export type Peer = { doc: Y.Doc; conn: Connection; store: SharedFetchStoreWithExtras };
export type Servers = { cluster: Cluster; ws: SyncServer };

/** `count` peers of one room, each its own doc, connection and store; Hocuspocus peers alternate between the instances. */
export function openPeers(contender: Contender, servers: Servers, room: string, count: number, settleMs: number): Peer[] {
  const { cluster, ws } = servers;
  return Array.from({ length: count }, (_, i) => {
    const doc = new Y.Doc();
    const conn: Connection =
      contender === "y-websocket"
        ? connectPeers(doc, { url: ws.url, room, WebSocketPolyfill: WebSocket })
        : connectHocuspocus(doc, {
            urls: i % 2 === 0 ? cluster.urls : [...cluster.urls].reverse(),
            room,
            token: cluster.token(room),
            WebSocketPolyfill: WebSocket,
          });
    return { doc, conn, store: createSharedFetchStore({ doc, awareness: conn.awareness, settleMs }) };
  });
}

export function closePeers(peers: readonly Peer[]): void {
  for (const { store, conn, doc } of peers) {
    store.destroy();
    conn.destroy();
    doc.destroy();
  }
}

/**
 * Resolves once every peer is synced and sees the store presence of every other peer: before
 * that, an ask would race the peers' arrival instead of the peers' claims.
 */
export async function whenAllPresent(peers: readonly Peer[], timeoutMs = 60_000): Promise<void> {
  await Promise.all(peers.map((p) => p.conn.whenSynced));
  const present = (p: Peer): number => [...p.conn.awareness.getStates().values()].filter((s) => s[PRESENCE_FIELD] !== undefined).length;
  const all = (): boolean => peers.every((p) => present(p) === peers.length);
  if (all()) return;
  await new Promise<void>((resolve, reject) => {
    const offs: (() => void)[] = [];
    const done = (error?: Error): void => {
      clearTimeout(timer);
      offs.forEach((off) => off());
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => {
      const seen = peers.map(present).sort((a, b) => a - b);
      done(new Error(`peers did not all see each other within ${timeoutMs} ms: fewest seen ${seen[0]} of ${peers.length}`));
    }, timeoutMs);
    for (const p of peers) {
      const check = (): void => void (all() && done());
      p.conn.awareness.on("change", check);
      offs.push(() => p.conn.awareness.off("change", check));
    }
  });
}

/**
 * Resolves once no peer's doc changed for `quietMs` (the room's initial traffic is over), or after
 * `maxMs` with how long it stayed busy. Awareness renewals never stop and are not waited for.
 */
export async function whenDocsQuiet(peers: readonly Peer[], quietMs = 300, maxMs = 15_000): Promise<boolean> {
  let last = performance.now();
  const touch = (): void => void (last = performance.now());
  for (const p of peers) p.doc.on("update", touch);
  const started = performance.now();
  try {
    while (performance.now() - last < quietMs) {
      if (performance.now() - started > maxMs) return false;
      await new Promise((resolve) => setTimeout(resolve, quietMs / 3));
    }
    return true;
  } finally {
    for (const p of peers) p.doc.off("update", touch);
  }
}
