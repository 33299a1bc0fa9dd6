import type { Awareness } from "y-protocols/awareness";
import { build, nameTwins, type Built, type KeyHint } from "./build.ts";
import { dataSizer } from "./data-size.ts";
import {
  connectorsOf,
  hashKey,
  inspectable,
  lookAgain,
  onConnector,
  type Inspection,
  type SharedFetchStore,
  type StoreEvent,
} from "./core.ts";
import { readPresence } from "./presence.ts";
import { presenceSince, watchSuccessors } from "./presence-watch.ts";
import { sameSettle, shareMalformed, shareRows } from "./share.ts";
import { Timeline } from "./timeline.ts";
import type { DevtoolsEvent, DevtoolsKeyStatus, DevtoolsSnapshot } from "./types.ts";

export type DevtoolsModelOptions = {
  /** Presence (from connectTabs/connectPeers): shows which replicas are here and whose claims lost their holder. */
  awareness?: Awareness | undefined;
  /** How many store events the log keeps, newest last. Default 200. */
  maxEvents?: number | undefined;
  /** How many timeline entries are kept. Default 500. */
  maxTimeline?: number | undefined;
  /** Listeners are told at most once per this many ms (a render budget of ~10/s). Default 100; 0: every change. */
  minNotifyIntervalMs?: number | undefined;
};

/** A TanStack/Yjs-style external store of everything the panel shows, for useSyncExternalStore. */
export type DevtoolsModel = {
  subscribe(listener: () => void): () => void;
  /** Rebuilt lazily; keeps its identity until its content changes. */
  getSnapshot(): DevtoolsSnapshot;
  /** The cross-replica timeline this model records (from its creation on, open or closed). */
  readonly timeline: Timeline;
  /** The panel showed `previous` before this model's store (a logout and a login): the timeline says so. */
  follows(previous: SharedFetchStore): void;
  destroy(): void;
};

export const DEFAULT_MAX_EVENTS = 200;
export const DEFAULT_NOTIFY_INTERVAL_MS = 100;

const report = (what: string, error: unknown) => queueMicrotask(() => console.error(`shared-fetch devtools: ${what}`, error));
const NO_COUNTS: Record<DevtoolsKeyStatus, number> = { idle: 0, pending: 0, stale: 0, success: 0, error: 0 };

export function createDevtoolsModel(store: SharedFetchStore, opts: DevtoolsModelOptions = {}): DevtoolsModel {
  const { store: s, records } = inspectable(store);
  const maxEvents = opts.maxEvents ?? DEFAULT_MAX_EVENTS;
  if (!Number.isSafeInteger(maxEvents) || maxEvents < 1)
    throw new RangeError(`shared-fetch devtools: maxEvents must be a positive integer, got ${String(maxEvents)}`);
  const interval = opts.minNotifyIntervalMs ?? DEFAULT_NOTIFY_INTERVAL_MS;
  const { awareness } = opts;
  const hints = new Map<string, KeyHint>();
  const bytesOf = dataSizer();
  const timeline = new Timeline({ sizeOf: bytesOf, ...(opts.maxTimeline !== undefined ? { max: opts.maxTimeline } : {}) });
  // The core's own SHA-256 (hex) of the identity, cut short: one hasher in the app, not a second.
  const identityHash = hashKey(s.identity).slice(0, 12);
  /** When this model saw each replica's presence change. */
  const since = new Map<string, number>();
  const notePresence = presenceSince(since);
  const listeners = new Set<() => void>();
  let events: readonly DevtoolsEvent[] = [];
  let seq = 0;
  let inspection: Inspection | undefined;
  let snapshot: DevtoolsSnapshot | undefined;
  let notified: DevtoolsSnapshot | undefined;
  let dirty = true;
  let queued = false;
  let destroyed = false;
  let storeDestroyed = false;
  let lastNotify = -Infinity;
  let notifyTimer: ReturnType<typeof setTimeout> | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  /** When to look again with no change to tell: a lease or a settle window running out. */
  const next = lookAgain();

  // Called from Yjs observers, i.e. inside a writer's transaction: mark, never throw, observe later.
  const changed = () => {
    if (queued || destroyed || storeDestroyed) return;
    queued = true;
    queueMicrotask(() => {
      if (queued) observe(true);
    });
  };
  /** One inspection per batch of changes, open or closed: the timeline must not miss a transition. */
  function observe(tell: boolean): void {
    queued = false;
    if (destroyed) return;
    try {
      const seen = nameTwins(s.inspect());
      // A destroyed store reads its doc no more: judged against a running clock, its frozen view
      // would show live claims going stale. Keep its last view, and say it is one.
      if (seen.lifecycle === "destroyed") {
        storeDestroyed = true;
        // It changes no more: let go of its doc and presence, which outlive it and would keep it
        // (and this model) alive for as long as they live.
        for (const stop of stops.splice(0)) stop();
        clearTimeout(expiryTimer);
        expiryTimer = undefined;
        if (!inspection) inspection = seen;
        dirty = true;
        if (tell) schedule();
        return;
      }
      // A crashed replica (the simulation) reads nothing more either: keep its last view until it
      // serves again (a SharedWorker tab's next worker), or the clock alone would lapse live claims.
      if (inspection && inspectable(store).internals.dev.crashed) arm(Infinity, 0);
      else {
        inspection = seen;
        timeline.observe(inspection, successors);
        successors.clear();
        notePresence(inspection);
        forgetHints(inspection);
        arm(next(inspection), inspection.at);
      }
    } catch (error) {
      // A panel must never take down the app it inspects: keep showing what was last known.
      report("reading the doc failed", error);
    }
    dirty = true;
    if (tell) schedule();
  }
  // Renders are batched: at most one notification per `interval`, the first one at once.
  function schedule(): void {
    if (destroyed || listeners.size === 0 || notifyTimer !== undefined) return;
    const wait = lastNotify + interval - Date.now();
    if (wait <= 0) notify();
    else notifyTimer = setTimeout(notify, wait);
  }
  function notify(): void {
    notifyTimer = undefined;
    if (destroyed || listeners.size === 0 || model.getSnapshot() === notified) return;
    notified = snapshot;
    lastNotify = Date.now();
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        report("listener failed", error);
      }
    }
  }
  // A panel left open for days sees many keys come and go: the hints of those the store shows no more go.
  function forgetHints(i: Inspection): void {
    if (hints.size > i.keys.length) {
      const shown = new Set(i.keys.map((k) => k.key));
      for (const key of hints.keys()) if (!shown.has(key)) hints.delete(key);
    }
  }
  const guard =
    <A>(fn: (arg: A) => void) =>
    (arg: A) => {
      try {
        fn(arg);
      } catch (error) {
        report("observer failed", error);
      }
    };
  // The store says when what it knows or believes changed (records, lock releases, presence).
  const stops: (() => void)[] = [s.onInspect(changed), s.onEvent(guard(record))];
  // Anything else needs no per-key bookkeeping: any change under the lanes' root marks the snapshot
  // dirty. Table listeners alone would miss a lane of pure garbage (no table, no key to report).
  const root = records.lanes.root;
  root.observeDeep(changed);
  stops.push(() => root.unobserveDeep(changed));
  /** Replicas whose presence a new store on their connection took over since the last inspection. */
  const successors = new Map<string, string>();
  // Given none, the panel still reads the presence its store's doc is connected with (connectTabs,
  // connectPeers): else a store swapped on a connection reads as the old one gone unheard.
  const watch = (a: Awareness | undefined) => a && stops.push(watchSuccessors(a, successors, changed, guard));
  if (awareness) watch(awareness);
  else {
    for (const c of connectorsOf(records.doc)) watch(c.awareness);
    stops.push(onConnector(records.doc, (c) => watch(c.awareness)));
  }
  // The baseline: what stands when the panel starts (and the claims' expiry timer).
  observe(false);

  function record(event: StoreEvent): void {
    const kept = events.length >= maxEvents ? events.slice(events.length - maxEvents + 1) : events;
    events = [...kept, { seq: ++seq, at: Date.now(), event }];
    if (event.type === "aborted") timeline.aborts.set(event.key, [event.rev, event.reason]);
    if (event.type === "joined") timeline.joins.set(event.key, [event.rev, event.to]);
    if (event.type === "claimed") timeline.own.set(event.key, [event.rev]);
    const own = event.type === "yielded" && timeline.own.get(event.key);
    // A claim that yielded while waiting for its key's lock wrote nothing (its wait is a join); one
    // that stepped back with no claim standing ("") claims again: neither is told.
    if (own && own[0] === event.rev) own[2] = event.to;
    if (event.type === "swept") for (const key of event.keys) hints.delete(key);
    else if ("key" in event && "kind" in event) {
      const label = "label" in event ? event.label : hints.get(event.key)?.label;
      hints.set(event.key, label === undefined ? { kind: event.kind } : { kind: event.kind, label });
    }
    changed();
  }

  function rebuild(): DevtoolsSnapshot {
    const prev = snapshot;
    const i = inspection;
    // Read anew: a SharedWorker tab whose worker failed is a front for its own replica from then on.
    const { dev, engine } = inspectable(store).internals;
    const worker = (store as { mode?: unknown }).mode === "shared-worker";
    const simulations = { crashed: dev.crashed, networkPaused: dev.networkPaused };
    // Nothing inspected yet, or a view that could not be built: the last one shown, else an empty one.
    const none = () =>
      prev ??
      snapshotOf({
        replicaId: s.replicaId,
        hasAwareness: !!awareness,
        keys: [],
        replicas: [],
        malformed: [],
        events,
        timeline: [],
        at: Date.now(),
        simulations,
      });
    if (!i) return none();
    let built: Built;
    try {
      built = build({
        inspection: i,
        presence: readPresence(awareness),
        hints,
        bytesOf,
        seen: timeline,
        since,
        identityHash,
        shown: worker ? new Set([...engine.states()].map((st) => st.key)) : undefined,
      });
    } catch (error) {
      report("building the view failed", error);
      return none();
    }
    const keys = shareRows(prev?.keys ?? [], built.keys, (row) => row.key);
    const replicas = shareRows(prev?.replicas ?? [], built.replicas, (row) => row.replicaId);
    const malformed = shareMalformed(prev?.malformed ?? [], i.malformed);
    const tl = timeline.entries();
    const sameSims =
      prev && prev.simulations.crashed === simulations.crashed && prev.simulations.networkPaused === simulations.networkPaused;
    const settle = prev && sameSettle(prev.settle, i.settle) ? prev.settle : i.settle;
    if (
      prev &&
      sameSims &&
      prev.settle === settle &&
      prev.keys === keys &&
      prev.replicas === replicas &&
      prev.malformed === malformed &&
      prev.events === events &&
      prev.timeline === tl &&
      !!prev.storeDestroyed === storeDestroyed &&
      !!prev.worker === worker
    )
      return prev;
    return snapshotOf({
      replicaId: s.replicaId,
      hasAwareness: !!awareness,
      keys,
      replicas,
      malformed,
      events,
      timeline: tl,
      at: i.at,
      simulations: sameSims ? prev.simulations : simulations,
      ...(settle ? { settle } : {}),
      ...(storeDestroyed ? { storeDestroyed: true as const } : {}),
      ...(worker ? { worker: true as const } : {}),
    });
  }

  /** A silent claimant goes stale with no doc change: wake up when the next lease runs out (or a settle window, lookAgain). */
  function arm(at: number, now: number): void {
    if (expiryTimer !== undefined) clearTimeout(expiryTimer);
    expiryTimer = at === Infinity || destroyed ? undefined : setTimeout(changed, at - now + 1);
  }

  const model: DevtoolsModel = {
    timeline,
    follows(previous) {
      const p = inspectable(previous).store;
      timeline.follow(s.replicaId, p.replicaId, p.inspect().lifecycle === "destroyed");
      dirty = true;
      schedule();
    },
    subscribe(listener) {
      // A first subscriber holds the current snapshot (React reads before it subscribes, and
      // checks again right after); later ones join listeners told of `notified` already.
      if (listeners.size === 0) notified = snapshot;
      listeners.add(listener);
      if (dirty) schedule();
      return () => {
        listeners.delete(listener);
      };
    },
    getSnapshot() {
      // A change is queued but not yet observed: observe now, so a read never lags the store.
      // Listeners are told a microtask later, never from inside the reader's render.
      if (queued) {
        observe(false);
        queueMicrotask(schedule);
      }
      if (dirty || !snapshot) {
        dirty = false;
        snapshot = rebuild();
      }
      return snapshot;
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      for (const stop of stops) stop();
      arm(Infinity, 0);
      if (notifyTimer !== undefined) clearTimeout(notifyTimer);
      listeners.clear();
    },
  };
  return model;
}

/** A snapshot of `view`, its keys counted by status. */
function snapshotOf(view: Omit<DevtoolsSnapshot, "counts">): DevtoolsSnapshot {
  const counts = { ...NO_COUNTS };
  for (const row of view.keys) counts[row.status] += 1;
  return { ...view, counts };
}
