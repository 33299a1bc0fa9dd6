/**
 * Retention across reloads: records nobody asked for within `retentionMs` go, even where no tab
 * lives that long (a page reloaded or closed every few hours, a browser closed each evening). A
 * replica dates a key from when it first saw it, and what IndexedDB loads was first seen at the
 * load: each new tab started every key's clock again, so in tabs that each lived less than
 * `retentionMs` nothing was ever swept, and the doc, the database and every tab's memory grew
 * with every key ever asked for. Real connectTabs (BroadcastChannel under Node), fake-indexeddb,
 * a fake clock.
 */
import "fake-indexeddb/auto";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { background, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";
import { fakeStorage } from "./boot-fakes.ts";

const HOUR = 3600_000;

async function deliver(ms = 0): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
  await tick(ms);
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
}

beforeEach(() => {
  useFakeClock();
  vi.stubGlobal("localStorage", fakeStorage());
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

it("a key nobody asked for within retentionMs is swept by tabs that each live less than that", async () => {
  const name = `reloads-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  host.auto = () => ({ status: 200, body: "v", delayMs: 50 });
  const open = async () => {
    const doc = new Y.Doc();
    const tabs = connectTabs(doc, { name });
    const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetch, retentionMs: HOUR });
    await deliver(300);
    return { doc, store, close: () => (store.destroy(), tabs.destroy(), doc.destroy()) };
  };
  let tab = await open();
  await deliver(0);
  await until(tab.store.ensure({ url: `${URL_A}/search?q=first` }));
  // Sessions of 40 min, 10 min apart, each asking for a new key every 10 min (a sweep looks then).
  let seen = 0;
  for (let session = 0; session < 4; session++) {
    for (let m = 0; m < 4; m++) {
      background(tab.store.ensure({ url: `${URL_A}/search?q=${seen++}` }));
      await deliver(1000);
      vi.advanceTimersByTime(9 * 60_000);
      await deliver();
    }
    tab.close();
    vi.advanceTimersByTime(10 * 60_000);
    tab = await open();
  }
  // The new tab asks for something: its sweep looks at what it loaded.
  await until(tab.store.ensure({ url: `${URL_A}/search?q=${seen++}` }));
  await deliver(1000);
  const { results } = internalsOf(tab.store).records;
  // Asked for within the hour: the last session's 4 keys and this one. The 13 before them, and the
  // first tab's key, are gone.
  expect(results.keys().length).toBe(5);
  tab.close();
}, 20_000);
