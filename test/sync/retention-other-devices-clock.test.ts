/**
 * Retention dates a key a tab loads by the newest time its records carry only where they were all
 * written on this device's clock. A browser whose doc of that name ever synced with other devices
 * (connectPeers on an earlier visit, in another tab, or made after the store) holds their
 * records: a device whose clock runs hours behind wrote times hours old, and a reloaded tab on
 * connectTabs alone swept what that device asked for a moment ago, a deletion that reaches every
 * device once the doc syncs with them again (DESIGN.md invariant 2: never compare another
 * machine's timestamp with `Date.now()`). Real y-websocket server on 127.0.0.1, real connectTabs
 * (BroadcastChannel under Node), fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { fakeStorage } from "./boot-fakes.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

const HOUR = 3600_000;
const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  vi.stubGlobal("localStorage", fakeStorage());
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

it("a tab on connectTabs alone keeps what a device whose clock runs 3 h behind asked for a moment ago (invariant 2)", async () => {
  const name = unique("tabs");
  const room = unique("room");
  const host = new Host();
  host.auto = () => ({ status: 200, body: "v", delayMs: 5 });
  const other = { url: "https://api.example.test/items?on=device-b" };
  const ours = { url: "https://api.example.test/items?on=this-tab" };
  const peersOf = (doc: Y.Doc) => connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });

  // Device B, whose wall clock runs 3 h behind: its result says it was fetched 3 h ago.
  const real = Date.now.bind(Date);
  const skew = vi.spyOn(Date, "now").mockImplementation(() => real() - 3 * HOUR);
  const docB = new Y.Doc();
  const peersB = peersOf(docB);
  const storeB = createSharedFetchStore({ doc: docB, awareness: peersB.awareness, fetch: host.fetchAs("b"), locks: null });
  await peersB.whenSynced;
  await storeB.ensure(other);
  skew.mockRestore();

  // This browser's tab, on connectTabs and connectPeers, gets it and persists it.
  const docA = new Y.Doc();
  const tabsA = connectTabs(docA, { name });
  const peersA = peersOf(docA);
  const storeA = createSharedFetchStore({ doc: docA, awareness: tabsA.awareness, fetch: host.fetchAs("a"), locks: null });
  await vi.waitFor(() => expect(storeA.snapshot(other)).toMatchObject({ status: "success", data: "v" }), { timeout: 5000, interval: 20 });
  await new Promise((resolve) => setTimeout(resolve, 100)); // IndexedDB's write
  storeA.destroy();
  peersA.destroy();
  tabsA.destroy();
  docA.destroy();

  // Reloaded, a tab on connectTabs alone (its peers made later, or never) loads it and asks for
  // something else: its sweep looks at what it loaded.
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs("a2"), locks: null, retentionMs: HOUR });
  try {
    await tabs.whenSynced;
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
    await store.ensure(ours);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Both kept: B asked for its key a moment ago, on B's clock 3 h ago.
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
