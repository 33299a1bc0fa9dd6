/**
 * Issue "time to data" on a page open all day, with the real store: results pass `snapshotBytes`,
 * so the localStorage copy is removed; retention sweeps them once nobody asked for them within
 * `retentionMs`, and the doc then fits again: the copy must come back (it never did: the tab had
 * stopped keeping it), holding what is still recorded and nothing swept.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";
import { fakeStorage, noOtherReplica } from "./boot-fakes.ts";

const HOUR = 3600_000;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** Lets fake-indexeddb's requests (real tasks, not timers) run, then due timers. */
async function deliver(ms = 0): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
  await tick(ms);
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
}

it("results past snapshotBytes, then swept by retention: the copy is written again with what is left", async () => {
  const name = `snapshot-sweep-${Math.random().toString(36).slice(2)}`;
  const storage = fakeStorage();
  vi.stubGlobal("localStorage", storage);
  vi.stubGlobal("navigator", noOtherReplica);
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, snapshotBytes: 8 * 1024 });
  await tabs.whenSynced;
  useFakeClock();
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: call.url.endsWith("/big") ? "x".repeat(12 * 1024) : "small" });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetch, retentionMs: HOUR });
  const copy = (): string | undefined => storage.items.get(`shared-fetch:snapshot:${name}`);

  await until(store.ensure({ url: `${URL_A}/small` }));
  await deliver(1000);
  expect(copy()).toBeDefined();
  await until(store.ensure({ url: `${URL_A}/big` }));
  await deliver(1000);
  expect(copy()).toBeUndefined(); // over the limit: removed

  // Two hours on, a new ask: the store notices the old keys and sweeps them.
  await tick(2 * HOUR);
  const swept: string[][] = [];
  store.onEvent((e) => e.type === "swept" && swept.push(e.keys));
  await until(store.ensure({ url: `${URL_A}/later` }));
  await deliver(60_000);
  expect(swept.flat()).toContain(store.keyOf({ url: `${URL_A}/big` }));
  const stored = copy();
  expect(stored).toBeDefined();
  const read = new Y.Doc();
  Y.applyUpdate(read, Buffer.from(stored!, "base64"));
  expect(Y.encodeStateAsUpdate(read).byteLength).toBeLessThanOrEqual(8 * 1024);

  store.destroy();
  tabs.destroy();
  doc.destroy();
});
