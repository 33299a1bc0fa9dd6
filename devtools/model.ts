import type { Awareness } from "y-protocols/awareness";
import { build, type Built, type KeyHint } from "./build.ts";
import { inspectable, type SharedFetchStore, type StoreEvent } from "./core.ts";
import { readPresence } from "./presence.ts";
import { shareMalformed, shareRows } from "./share.ts";
import type { DevtoolsEvent, DevtoolsSnapshot } from "./types.ts";

export type DevtoolsModelOptions = {
  /** Presence (from connectTabs/connectPeers): shows which replicas are here and whose claims lost their holder. */
  awareness?: Awareness;
  /** How many store events the log keeps, newest last. Default 200. */
  maxEvents?: number;
};

/** A TanStack/Yjs-style external store of everything the panel shows, for useSyncExternalStore. */
export type DevtoolsModel = {
  subscribe(listener: () => void): () => void;
  /** Rebuilt lazily; keeps its identity until its content changes. */
  getSnapshot(): DevtoolsSnapshot;
  destroy(): void;
};

export const DEFAULT_MAX_EVENTS = 200;

const utf8 = new TextEncoder();
const report = (what: string, error: unknown) => queueMicrotask(() => console.error(`shared-fetch devtools: ${what}`, error));

export function createDevtoolsModel(store: SharedFetchStore, opts: DevtoolsModelOptions = {}): DevtoolsModel {
  const { store: s, records } = inspectable(store);
  const maxEvents = opts.maxEvents ?? DEFAULT_MAX_EVENTS;
  if (!Number.isSafeInteger(maxEvents) || maxEvents < 1) throw new RangeError(`shared-fetch devtools: maxEvents must be a positive integer, got ${String(maxEvents)}`);
  const { awareness } = opts;
  const hints = new Map<string, KeyHint>();
  const sizes = new WeakMap<object, number>();
  const bytesOf = (data: unknown): number => {
    if (typeof data !== "object" || data === null) return utf8.encode(JSON.stringify(data) ?? "").length;
    let size = sizes.get(data);
    if (size === undefined) sizes.set(data, (size = utf8.encode(JSON.stringify(data) ?? "").length));
    return size;
  };
  const listeners = new Set<() => void>();
  let events: readonly DevtoolsEvent[] = [];
  let seq = 0;
  let snapshot: DevtoolsSnapshot | undefined;
  let notified: DevtoolsSnapshot | undefined;
  let dirty = true;
  let queued = false;
  let destroyed = false;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;


  // Called from Yjs observers, i.e. inside a writer's transaction: mark, never throw, notify later.
  const changed = () => {
    dirty = true;
    if (queued || destroyed) return;
    queued = true;
    queueMicrotask(flush);
  };
  // Nobody listening: stay dirty and build nothing. Otherwise notify only on a real change.
  const flush = () => {
    queued = false;
    if (destroyed || listeners.size === 0 || model.getSnapshot() === notified) return;
    notified = snapshot;
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        report("listener failed", error);
      }
    }
  };
  const guard =
    <A,>(fn: (arg: A) => void) =>
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
  if (awareness) {
    awareness.on("change", changed);
    stops.push(() => awareness.off("change", changed));
  }

  function record(event: StoreEvent): void {
    const kept = events.length >= maxEvents ? events.slice(events.length - maxEvents + 1) : events;
    events = [...kept, { seq: ++seq, at: Date.now(), event }];
    if (event.type === "swept") for (const key of event.keys) hints.delete(key);
    else if ("key" in event && "kind" in event) {
      const label = "label" in event ? event.label : hints.get(event.key)?.label;
      hints.set(event.key, label === undefined ? { kind: event.kind } : { kind: event.kind, label });
    }
    changed();
  }

  function rebuild(): DevtoolsSnapshot {
    const now = Date.now();
    let built: Built;
    try {
      built = build({ inspection: s.inspect(), presence: readPresence(awareness), hints, bytesOf });
    } catch (error) {
      // A panel must never take down the app it inspects: keep showing what was last known.
      report("reading the doc failed", error);
      return snapshot ?? { replicaId: s.replicaId, hasAwareness: !!awareness, keys: [], replicas: [], malformed: [], events };
    }
    arm(built.nextExpiry, now);
    const prev = snapshot;
    const keys = shareRows(prev?.keys ?? [], built.keys, (row) => row.key);
    const replicas = shareRows(prev?.replicas ?? [], built.replicas, (row) => row.replicaId);
    const malformed = shareMalformed(prev?.malformed ?? [], s.malformed());
    if (prev && prev.keys === keys && prev.replicas === replicas && prev.malformed === malformed && prev.events === events) return prev;
    return { replicaId: s.replicaId, hasAwareness: !!awareness, keys, replicas, malformed, events };
  }

  /** A silent claimant goes stale with no doc change: wake up when the next lease runs out. */
  function arm(at: number, now: number): void {
    if (expiryTimer !== undefined) clearTimeout(expiryTimer);
    expiryTimer = at === Infinity || destroyed ? undefined : setTimeout(changed, at - now + 1);
  }

  const model: DevtoolsModel = {
    subscribe(listener) {
      // A first subscriber holds the current snapshot (React reads before it subscribes, and
      // checks again right after); later ones join listeners told of `notified` already.
      if (listeners.size === 0) notified = snapshot;
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    getSnapshot() {
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
      listeners.clear();
    },
  };
  return model;
}
