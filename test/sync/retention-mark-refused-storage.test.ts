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
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { deviceBehind, peersOn, reloadedTab, tabMeets, unique } from "./device-behind.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

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
  const peersOf = peersOn(server, room);

  // Device B, whose wall clock runs 25 h behind: its result says it was fetched 25 h ago.
  const b = await deviceBehind(host, 25, other, peersOf);

  // This browser's tab, on connectTabs and connectPeers, gets B's result and persists it; its
  // localStorage takes nothing (the mark's write was tried and refused).
  await tabMeets(name, host, peersOf, other, "v");
  expect(storage.refused).toBeGreaterThan(0);

  // Reloaded, a tab on connectTabs alone loads B's result and asks for something else: its sweep
  // looks at what it loaded.
  const reloaded = reloadedTab(name, host, "a2");
  const { store } = reloaded;
  try {
    // No mark in localStorage says the database holds anything: the tab does not wait for its read.
    await vi.waitFor(() => expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" }), { timeout: 5000, interval: 20 });
    await store.ensure(ours);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Kept: B asked for it a moment ago, 25 h ago on B's clock.
    expect(internalsOf(store).records.results.keys()).toHaveLength(2);
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
  } finally {
    reloaded.destroy();
    b.destroy();
  }
}, 20_000);
