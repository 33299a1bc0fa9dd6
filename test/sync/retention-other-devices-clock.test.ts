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
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { fakeStorage } from "./boot-fakes.ts";
import { deviceBehind, peersOn, reloadedTab, tabMeets, unique } from "./device-behind.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

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
  const peersOf = peersOn(server, room);

  // Device B, whose wall clock runs 3 h behind: its result says it was fetched 3 h ago.
  const b = await deviceBehind(host, 3, other, peersOf);

  // This browser's tab, on connectTabs and connectPeers, gets it and persists it.
  await tabMeets(name, host, peersOf, other, "v");

  // Reloaded, a tab on connectTabs alone (its peers made later, or never) loads it and asks for
  // something else: its sweep looks at what it loaded.
  const reloaded = reloadedTab(name, host, "a2");
  const { tabs, store } = reloaded;
  try {
    await tabs.whenSynced;
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
    await store.ensure(ours);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Both kept: B asked for its key a moment ago, on B's clock 3 h ago.
    expect(internalsOf(store).records.results.keys()).toHaveLength(2);
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
  } finally {
    reloaded.destroy();
    b.destroy();
  }
}, 20_000);
