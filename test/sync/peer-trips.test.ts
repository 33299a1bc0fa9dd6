/**
 * Issue "time to data", "a settle window sized by measured sync": connectPeers measures its round
 * trips to a real y-websocket server on 127.0.0.1 (a sync step 1 answered by a step 2), and a store
 * with no replica of another browser present claims eagerly, with no window; with a peer present it
 * waits the window those trips size. Until its first probe is answered, the initial sync's time
 * bounds a trip and may shorten the default window.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, DEFAULT_SETTLE_MS } from "../../src/index.ts";
import { connectorsOf } from "../../src/core/connectors.ts";
import { settleFor } from "../../src/core/settle-window.ts";
import { windowForTrip } from "../../src/core/trips.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});

const room = () => `trips-${Math.random().toString(36).slice(2)}`;

function peer(name: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url: server.url, room: name, WebSocketPolyfill: WebSocket });
  const calls: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    calls.push(String(input));
    return new Response(JSON.stringify({ ok: true }), { headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch, locks: null });
  return { doc, conn, store, calls, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

const tripOf = (doc: Y.Doc) =>
  connectorsOf(doc)
    .find((c) => c.crossDevice)
    ?.tripMs?.();

describe("measured trips size the settle window", () => {
  it("a lone peer measures its trips, then claims eagerly: no window, the claim says so", async () => {
    const a = peer(room());
    try {
      await a.conn.whenSynced;
      await vi.waitFor(() => expect(tripOf(a.doc)).toBeGreaterThanOrEqual(0), { timeout: 5000, interval: 50 });
      const window = windowForTrip(tripOf(a.doc)!);
      await new Promise((r) => setTimeout(r, window + 5)); // in sync for longer than the window
      let standing: { eager?: true } | undefined;
      a.store.onEvent((e) => {
        if (e.type === "dispatched") standing = a.store.claims().find(([, c]) => c.replicaId === a.store.replicaId)?.[1];
      });
      await a.store.ensure({ url: "https://api.example.test/alone" });
      expect(a.calls).toHaveLength(1);
      expect(standing).toMatchObject({ eager: true });
    } finally {
      a.close();
    }
  });

  it("with a peer of another browser present, a claim waits the window and is not eager", async () => {
    const name = room();
    const [a, b] = [peer(name), peer(name)];
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await vi.waitFor(() => expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true));
      let standing: { eager?: true } | undefined;
      a.store.onEvent((e) => {
        if (e.type === "dispatched") standing = a.store.claims().find(([, c]) => c.replicaId === a.store.replicaId)?.[1];
      });
      await a.store.ensure({ url: "https://api.example.test/shared" });
      expect(standing).toBeDefined();
      expect(standing!.eager).toBeUndefined();
    } finally {
      a.close();
      b.close();
    }
  });

  it("until the first probe's answer, the initial sync bounds the window: shortened by a quick sync, never longer than the default", async () => {
    const a = peer(room());
    try {
      const connector = () => connectorsOf(a.doc).find((c) => c.crossDevice)!;
      expect(connector().syncTripMs?.()).toBeUndefined();
      await a.conn.whenSynced;
      const bound = connector().syncTripMs?.();
      expect(bound).toBeGreaterThanOrEqual(0);
      // The first probe goes out a second after the sync: what a page's first claims get is the bound.
      expect(connector().tripMs?.()).toBeUndefined();
      const inputs = { doc: a.doc, exactTabs: false, fixedMs: undefined, defaultMs: DEFAULT_SETTLE_MS, elsewhere: () => 1 };
      // Through one server the window is the fence's fallback; what is left of it after the sync is `ms`.
      const settle = settleFor(inputs);
      const window = Math.min(DEFAULT_SETTLE_MS, windowForTrip(bound!));
      expect(settle.fence?.fallbackMs).toBe(window);
      expect(settle.ms).toBeLessThanOrEqual(window);
    } finally {
      a.close();
    }
  });

  it("a fence is answered once the server's step 2 to it is applied; unanswered (false) when the connection drops", async () => {
    const a = peer(room());
    try {
      const fenceOf = () => connectorsOf(a.doc).find((c) => c.crossDevice)!.fence!;
      // Not in sync yet: no order can be learnt, nothing is sent.
      expect(fenceOf()(() => {})).toBe(false);
      await a.conn.whenSynced;
      const answered = await new Promise<boolean>((resolve) => expect(fenceOf()(resolve)).toBe(true));
      expect(answered).toBe(true);
      const lost = new Promise<boolean>((resolve) => fenceOf()(resolve));
      a.conn.provider.disconnect();
      expect(await lost).toBe(false);
    } finally {
      a.close();
    }
  });
});
