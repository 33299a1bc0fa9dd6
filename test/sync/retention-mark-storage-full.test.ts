/**
 * The mark that this browser synced a doc of a name with other devices (connectTabs keeps it in
 * localStorage, see persisted-mark.ts) is what stops a later tab on connectTabs alone from dating
 * the keys it loads by the times other devices wrote, on their clocks (DESIGN.md invariant 2). An
 * origin whose localStorage is full (the app's own data beside the doc's copy) refused it: the
 * tab that met the other device went on, the mark unwritten, and a reloaded tab swept what that
 * device had asked for, a deletion that reaches every device at the next sync. The copy is a
 * cache the database stands behind: it makes room for the mark. Real connectTabs
 * (BroadcastChannel under Node), fake-indexeddb, a localStorage with a quota.
 */
import "fake-indexeddb/auto";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../../src/core/connectors.ts";
import { connectTabs } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { deviceBehind, reloadedTab, unique } from "./device-behind.ts";

/** localStorage holding at most `quota` characters of keys and values: setItem past it throws, as a browser's does. */
function fullStorage(quota: number, initial: Record<string, string>) {
  const items = new Map(Object.entries(initial));
  const used = () => [...items].reduce((n, [k, v]) => n + k.length + v.length, 0);
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (used() - (items.has(k) ? k.length + items.get(k)!.length : 0) + k.length + v.length > quota)
        throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      items.set(k, v);
    },
    removeItem: (k: string) => void items.delete(k),
  };
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

beforeEach(() => {
  vi.stubGlobal("localStorage", undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

it("storage full as a tab meets another device: the doc's copy makes room for the mark, and a reloaded tab on connectTabs alone keeps that device's result (invariant 2)", async () => {
  const name = unique("full");
  const host = new Host();
  host.auto = () => ({ status: 200, body: "v" });
  const other = { url: "https://api.example.test/items?on=device-b" };
  const ours = { url: "https://api.example.test/items?on=this-tab" };

  // Device B, whose clock runs 25 h behind: its result says it was fetched 25 h ago.
  const b = await deviceBehind(host, 25, other);

  // An earlier visit left the doc's copy and its mark; the app filled the rest of the origin's storage.
  const earlier = new Y.Doc();
  earlier.getText("earlier").insert(0, "x".repeat(600));
  const initial = {
    [`shared-fetch:persisted:${name}`]: "1",
    [`shared-fetch:snapshot:${name}`]: base64(Y.encodeStateAsUpdate(earlier)),
    app: "a".repeat(4000),
  };
  const storage = fullStorage(
    Object.entries(initial).reduce((n, [k, v]) => n + k.length + v.length, 10),
    initial,
  );
  vi.stubGlobal("localStorage", storage);

  // This browser's tab syncs the doc with device B too (connectPeers, say), and persists B's result.
  const docA = new Y.Doc();
  const tabsA = connectTabs(docA, { name });
  const unregister = registerConnector(docA, { whenSynced: Promise.resolve(), crossDevice: true });
  Y.applyUpdate(docA, Y.encodeStateAsUpdate(b.doc), "device b");
  await new Promise((resolve) => setTimeout(resolve, 100)); // IndexedDB's write
  expect(storage.items.get(`shared-fetch:devices:${name}`)).toBe("1");
  unregister();
  tabsA.destroy();
  docA.destroy();

  // Reloaded, a tab on connectTabs alone loads B's result and asks for something else: its sweep
  // looks at what it loaded.
  const reloaded = reloadedTab(name, host, "a");
  const { tabs, store } = reloaded;
  try {
    await tabs.whenSynced;
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
    await store.ensure(ours);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Kept: B asked for it a moment ago, 25 h ago on B's clock.
    expect(internalsOf(store).records.results.keys()).toHaveLength(2);
    expect(store.snapshot(other)).toMatchObject({ status: "success", data: "v" });
  } finally {
    reloaded.destroy();
    b.destroy();
  }
});
