/**
 * The mark that this browser synced a doc of a name with other devices stops a later tab on
 * connectTabs alone from dating the keys it loads by the times those devices wrote, on their
 * clocks (DESIGN.md invariant 2). A localStorage that refuses every write (private modes, a quota
 * the doc's copy does not free) lost it, and a reloaded tab swept what a device 25 h behind had
 * asked for a moment ago, a deletion that reaches every device at the next sync. The database's
 * `custom` store keeps it too. Real connectTabs (BroadcastChannel under Node), fake-indexeddb, a
 * real y-websocket server on 127.0.0.1 between the tab and the device.
 */
import "fake-indexeddb/auto";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

const HOUR = 3600_000;
const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

/** A localStorage that reads (nothing) and refuses every write, as a browser's may. */
function refusingStorage() {
  let refused = 0;
  return {
    get refused() {
      return refused;
    },
    getItem: () => null,
    setItem: () => {
      refused += 1;
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    },
    removeItem: () => {},
  };
}

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});
let storage: ReturnType<typeof refusingStorage>;
beforeEach(() => {
  storage = refusingStorage();
  vi.stubGlobal("localStorage", storage);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

it("localStorage refusing every write as a tab meets a device 25 h behind: a reloaded tab on connectTabs alone still keeps that device's result (invariant 2)", async () => {
  const name = unique("refused");
  const room = unique("room");
  const host = new Host();
  host.auto = () => ({ status: 200, body: "v" });
  const other = { url: "https://api.example.test/items?on=device-b" };
  const ours = { url: "https://api.example.test/items?on=this-tab" };
  const peersOf = (doc: Y.Doc) => connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });

  // Device B, whose wall clock runs 25 h behind: its result says it was fetched 25 h ago.
  const real = Date.now.bind(Date);
  const skew = vi.spyOn(Date, "now").mockImplementation(() => real() - 25 * HOUR);
  const docB = new Y.Doc();
  const peersB = peersOf(docB);
  const storeB = createSharedFetchStore({ doc: docB, awareness: peersB.awareness, fetch: host.fetchAs("b"), locks: null });
  await peersB.whenSynced;
  await storeB.ensure(other);
  skew.mockRestore();

  // This browser's tab, on connectTabs and connectPeers, gets B's result and persists it; its
  // localStorage takes nothing (the mark's write was tried and refused).
  const docA = new Y.Doc();
  const tabsA = connectTabs(docA, { name });
  const peersA = peersOf(docA);
  const storeA = createSharedFetchStore({ doc: docA, awareness: tabsA.awareness, fetch: host.fetchAs("a"), locks: null });
  await vi.waitFor(() => expect(storeA.snapshot(other)).toMatchObject({ status: "success", data: "v" }), { timeout: 5000, interval: 20 });
  await new Promise((resolve) => setTimeout(resolve, 100)); // IndexedDB's write
  expect(storage.refused).toBeGreaterThan(0);
  storeA.destroy();
  peersA.destroy();
  tabsA.destroy();
  docA.destroy();

  // Reloaded, a tab on connectTabs alone loads B's result and asks for something else: its sweep
  // looks at what it loaded.
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs("a2"), locks: null, retentionMs: HOUR });
  try {
    // No mark in localStorage says the database holds anything: the tab does not wait for its read.
    await vi.waitFor(() => expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" }), { timeout: 5000, interval: 20 });
    await store.ensure(ours);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Kept: B asked for it a moment ago, 25 h ago on B's clock.
    expect(internalsOf(store).records.results.keys()).toHaveLength(2);
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
  } finally {
    store.destroy();
    tabs.destroy();
    doc.destroy();
    storeB.destroy();
    peersB.destroy();
    docB.destroy();
  }
}, 20_000);
