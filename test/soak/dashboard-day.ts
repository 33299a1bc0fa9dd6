import { vi } from "vitest";
import * as Y from "yjs";
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import { createDevtoolsModel, type DevtoolsModel } from "../../devtools/index.ts";
import { Retention } from "../../src/core/retention.ts";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { census, observerCount, typeObserverCount } from "../harness/census.ts";
import { background, cluster, tick, URL_A } from "../harness/replicas.ts";

export const HOUR = 3600_000;
const STEP_MS = 15 * 60_000;
const LINK = "soak-link";

/** Awareness instances in a mesh that tabs join and leave, as a BroadcastChannel provider links them. */
function presenceMesh() {
  const all = new Set<Awareness>();
  const join = () => {
    const a = new Awareness(new Y.Doc());
    a.on("update", ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (origin === LINK || !all.has(a)) return;
      const update = encodeAwarenessUpdate(a, [...added, ...updated, ...removed]);
      for (const to of all) if (to !== a) applyAwarenessUpdate(to, update, LINK);
    });
    for (const other of all) applyAwarenessUpdate(a, encodeAwarenessUpdate(other, [...other.getStates().keys()]), LINK);
    all.add(a);
    return a;
  };
  /** An orderly close says goodbye; a crash is silent (the others drop it on y-protocols' 30 s timeout). */
  const leave = (a: Awareness, crashed: boolean) => {
    if (crashed) all.delete(a);
    a.destroy();
    all.delete(a);
  };
  return { join, leave, destroy: () => [...all].forEach((a) => a.destroy()) };
}

/**
 * The retention of each store, by replica id, reached through its first ask (closures hold it
 * otherwise). Restore `spy` when done.
 */
export function captureRetentions(stores: () => Iterable<SharedFetchStoreWithExtras>) {
  const retentions = new Map<string, Retention>();
  const touch = Retention.prototype.touch;
  const spy = vi.spyOn(Retention.prototype, "touch").mockImplementation(function (this: Retention, key: string) {
    for (const s of stores())
      if (!retentions.has(s.replicaId) && internalsOf(s).records === (this as unknown as { records: unknown }).records)
        retentions.set(s.replicaId, this);
    return touch.call(this, key);
  });
  return { retentions, spy };
}

export type Measure = {
  hour: number;
  docBytes: number;
  tables: Record<string, number>;
  memory: Map<string, number>;
  docListeners: number;
  rootListeners: number;
  awarenessListeners: number;
  awarenessStates: number;
  timers: number;
  timeline: number;
  events: number;
};

/**
 * A dashboard open for a day in three tabs: tab 0 stays (with a devtools panel), tabs 1 and 2 are
 * closed and reopened every 30 min and one of them crashes every 2 h. Each tab shows one page of 4
 * keys (of 12 pages in turn: keys come and go, a fixed set) and polls it. The fetch is the
 * simulated host answering 50 ms later (a fake fetch under fake timers). Polls are compressed:
 * each 15-minute step polls every shown key once, then the clock runs the rest of the step
 * (heartbeats, re-check timers, presence renewals). y-protocols dates presence on lib0's clock,
 * which fake timers do not move: a crashed tab's presence is never timed out here.
 */
export async function dashboardDay(hours: number[], options: { retentionMs?: number } = {}): Promise<Measure[]> {
  const c = cluster(0, options);
  c.host.auto = () => ({ status: 200, body: { v: Math.random() }, delayMs: 50 });
  const mesh = presenceMesh();
  const { retentions, spy } = captureRetentions(() => c.stores);
  type Tab = { store: SharedFetchStoreWithExtras; awareness: Awareness; page: number; offs: (() => void)[] };
  const open = (page: number): Tab => {
    const awareness = mesh.join();
    return { store: c.join({ awareness }), awareness, page, offs: [] };
  };
  const page = (p: number) => Array.from({ length: 4 }, (_, i) => ({ url: `${URL_A}?page=${p % 12}&item=${i}` }));
  const show = (tab: Tab, p: number) => {
    tab.offs.forEach((off) => off());
    tab.page = p;
    tab.offs = page(p).map((req) => tab.store.subscribe(req, () => {}));
  };
  const close = (tab: Tab, crashed: boolean) => {
    if (crashed) c.crash(tab.store);
    mesh.leave(tab.awareness, crashed);
    tab.offs.forEach((off) => off());
    // A crashed tab runs no more code: its store is stopped with its doc already cut off.
    tab.store.destroy();
    retentions.delete(tab.store.replicaId);
  };
  const tabs = [open(0), open(4), open(8)];
  tabs.forEach((t) => show(t, t.page));
  const model: DevtoolsModel = createDevtoolsModel(tabs[0]!.store, { awareness: tabs[0]!.awareness, minNotifyIntervalMs: 0 });
  const offModel = model.subscribe(() => model.getSnapshot());
  const measures: Measure[] = [];
  const end = Math.max(...hours) * HOUR;
  for (let t = STEP_MS, step = 1; t <= end; t += STEP_MS, step++) {
    for (let round = 0; round < 1; round++) {
      for (const tab of tabs) for (const req of page(tab.page)) background(tab.store.refetch(req));
      await tick(200);
    }
    for (const tab of tabs) show(tab, tab.page + 1);
    if (step % 2 === 0) {
      const i = 1 + ((step / 2) % 2);
      const crashed = step % 8 === 0;
      if (crashed) for (const req of page(tabs[i]!.page)) background(tabs[i]!.store.refetch(req));
      if (crashed) await tick(30); // its claims stand: settled, their requests under way
      close(tabs[i]!, crashed);
      tabs[i] = open(tabs[i]!.page + 3);
      show(tabs[i]!, tabs[i]!.page);
    }
    await tick(STEP_MS - (step % 8 === 0 ? 430 : 400));
    if (hours.includes(t / HOUR)) measures.push(measure(t / HOUR));
  }
  offModel();
  model.destroy();
  spy.mockRestore();
  for (const tab of tabs) close(tab, false);
  mesh.destroy();
  return measures;

  function measure(hour: number): Measure {
    const tab = tabs[0]!;
    const { records, engine, dev } = internalsOf(tab.store);
    const doc = c.docOf(tab.store);
    const tables = Object.fromEntries(
      (["claims", "results", "programs", "errors", "beats", "asks"] as const).map((t) => [t, records[t].keys().length]),
    );
    const memory = census({
      records,
      engine,
      dev,
      retention: retentions.get(tab.store.replicaId),
      timeline: model.timeline,
    });
    return {
      hour,
      docBytes: Y.encodeStateAsUpdate(doc).byteLength,
      tables,
      memory,
      docListeners: observerCount(doc),
      rootListeners: typeObserverCount(records.lanes.root as unknown as Y.AbstractType<unknown>),
      awarenessListeners: observerCount(tab.awareness),
      awarenessStates: tab.awareness.getStates().size,
      timers: vi.getTimerCount(),
      timeline: model.timeline.entries().length,
      events: model.getSnapshot().events.length,
    };
  }
}
