import "fake-indexeddb/auto";
import { vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import type { Connection } from "../../src/sync/connection.ts";
import { Host } from "../../sim/host.ts";
import { census, observerCount } from "../harness/census.ts";
import { background, tick, URL_A } from "../harness/replicas.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { captureRetentions, HOUR } from "./dashboard-day.ts";

const STEP_MS = 10 * 60_000;
const REOPEN_EVERY = (2 * HOUR) / STEP_MS;
const POLLED = 3;

export type ChurnMeasure = {
  hour: number;
  keysSeen: number;
  docBytes: number;
  tables: Record<string, number>;
  /** The `updates` store: what a tab opening now reads before it decides anything. */
  idbRecords: number;
  idbBytes: number;
  snapshotBytes: number;
  memory: Map<string, number>;
  docListeners: number;
  timers: number;
};

/** Lets BroadcastChannel's messages and fake-indexeddb's requests (real tasks, not timers) run, then due timers. */
async function deliver(ms = 0): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
  await tick(ms);
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The `updates` store of the tabs' database: its record count and bytes. */
async function storedUpdates(name: string): Promise<{ records: number; bytes: number }> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const all = await new Promise<Uint8Array[]>((resolve, reject) => {
    const req = db.transaction(["updates"]).objectStore("updates").getAll();
    req.onsuccess = () => resolve(req.result as Uint8Array[]);
    req.onerror = () => reject(req.error);
  });
  db.close();
  return { records: all.length, bytes: all.reduce((n, u) => n + u.byteLength, 0) };
}

/**
 * A search page open for a day in three tabs on real connectTabs (BroadcastChannel under Node,
 * fake-indexeddb, a stubbed localStorage): every 10 min each tab mounts its third of that time's `keysPerHour`
 * keys never seen before (search-as-you-type, pagination, a detail page per id), shows them for
 * 5 s and drops them; tab 0 also polls 3 keys every 10 min all day. Every 2 h tab 2 closes and a
 * new tab opens in its place, reading the database. The host answers 50 ms later (a fake fetch,
 * fake timers; IndexedDB and the channel run on real tasks between the clock's steps).
 */
export async function churnDay(hours: number[], options: { keysPerHour: number; retentionMs: number }): Promise<ChurnMeasure[]> {
  const name = `churn-${Math.random().toString(36).slice(2)}`;
  const storage = fakeStorage();
  vi.stubGlobal("localStorage", storage);
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: Math.random() }, delayMs: 50 });
  type Tab = { doc: Y.Doc; tabs: Connection; store: SharedFetchStoreWithExtras };
  const live: Tab[] = [];
  const { retentions, spy } = captureRetentions(() => live.map((t) => t.store));
  const open = async (): Promise<Tab> => {
    const doc = new Y.Doc();
    const tabs = connectTabs(doc, { name });
    const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetch, retentionMs: options.retentionMs });
    const tab = { doc, tabs, store };
    live.push(tab);
    await deliver(300);
    return tab;
  };
  const close = (tab: Tab) => {
    tab.store.destroy();
    tab.tabs.destroy();
    tab.doc.destroy();
    live.splice(live.indexOf(tab), 1);
    retentions.delete(tab.store.replicaId);
  };
  const tabs = [await open(), await open(), await open()];
  const polled = Array.from({ length: POLLED }, (_, i) => ({ url: `${URL_A}/polled/${i}` }));
  const offPolled = polled.map((req) => tabs[0]!.store.subscribe(req, () => {}));
  const perTabStep = Math.max(1, Math.round((options.keysPerHour * STEP_MS) / HOUR / tabs.length));
  let seen = 0;
  const measures: ChurnMeasure[] = [];
  const end = Math.max(...hours) * HOUR;
  for (let t = STEP_MS, step = 1; t <= end; t += STEP_MS, step++) {
    for (const req of polled) background(tabs[0]!.store.refetch(req));
    const offs: (() => void)[] = [];
    for (const tab of tabs)
      for (let i = 0; i < perTabStep; i++) {
        const req = { url: `${URL_A}/search?q=${seen++}` };
        offs.push(tab.store.subscribe(req, () => {}));
        background(tab.store.ensure(req));
      }
    await deliver(5_000);
    offs.forEach((off) => off());
    if (step % REOPEN_EVERY === 0) {
      close(tabs[2]!);
      tabs[2] = await open();
    }
    // The rest of the step is quiet (presence renewals, sweeps' timers): run at once, not a turn per timer.
    vi.advanceTimersByTime(STEP_MS - 5_000 - (step % REOPEN_EVERY === 0 ? 300 : 0));
    await deliver();
    if (hours.includes(t / HOUR)) measures.push(await measure(t / HOUR));
  }
  offPolled.forEach((off) => off());
  spy.mockRestore();
  for (const tab of [...live]) close(tab);
  await deliver();
  vi.unstubAllGlobals();
  return measures;

  async function measure(hour: number): Promise<ChurnMeasure> {
    const tab = tabs[0]!;
    const { records, engine, dev } = internalsOf(tab.store);
    const tables = Object.fromEntries(
      (["claims", "results", "programs", "errors", "beats", "asks"] as const).map((t) => [t, records[t].keys().length]),
    );
    const stored = await storedUpdates(name);
    return {
      hour,
      keysSeen: seen,
      docBytes: Y.encodeStateAsUpdate(tab.doc).byteLength,
      tables,
      idbRecords: stored.records,
      idbBytes: stored.bytes,
      snapshotBytes: storage.items.get(`shared-fetch:snapshot:${name}`)?.length ?? 0,
      memory: census({ records, engine, dev, retention: retentions.get(tab.store.replicaId) }),
      docListeners: observerCount(tab.doc),
      timers: vi.getTimerCount(),
    };
  }
}
