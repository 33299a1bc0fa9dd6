/**
 * The inspector (an open devtools panel, a SharedWorker tab's panel through its port) is told of
 * every change of the doc, garbage included (invariant 14), and of nothing else: a transaction that
 * changed nothing — a sync server's echo of our own write, the empty answer to a fence or a trip
 * probe — costs a panel a whole inspection (about 150 ms with 10 000 keys) and shows nothing new.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../src/index.ts";
import { ROOT } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { startSyncServer, type SyncServer } from "./sync/ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});

describe("the inspector is told of changes, not of transactions that change nothing", () => {
  it("an update the doc already holds (a server's echo) tells no inspector; a change, even garbage, does", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: new Host().fetch, locks: null });
    let told = 0;
    store.onInspect(() => told++);
    const peer = new Y.Doc();
    peer.getArray<unknown>(ROOT).push(["not a lane"]);
    const update = Y.encodeStateAsUpdate(peer);
    Y.applyUpdate(doc, update, "server");
    await Promise.resolve();
    expect(told).toBe(1);
    for (let i = 0; i < 5; i++) Y.applyUpdate(doc, update, "server");
    await Promise.resolve();
    expect(told).toBe(1);
    expect(store.inspect().malformed).toHaveLength(1);
    store.destroy();
  });

  it("a store idle on a real y-websocket server: the answers to its trip probes tell no inspector", async () => {
    const doc = new Y.Doc();
    const conn = connectPeers(doc, { url: server.url, room: `idle-${Math.random()}`, WebSocketPolyfill: WebSocket });
    const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: new Host().fetch, locks: null });
    try {
      await conn.whenSynced;
      let told = 0;
      let transactions = 0;
      store.onInspect(() => told++);
      doc.on("afterTransaction", () => transactions++);
      // The first probes go out a second apart; each answer (a step 2 of nothing new) is a transaction.
      await vi.waitFor(() => expect(transactions).toBeGreaterThanOrEqual(2), { timeout: 20_000, interval: 50 });
      expect(told).toBe(0);
    } finally {
      store.destroy();
      conn.destroy();
      doc.destroy();
    }
  }, 30_000);
});
