import { callAll } from "../core/emitter.ts";
import type { Snapshot } from "../core/types.ts";
import type { ResultInfo, TabMessage, WorkKind } from "./protocol.ts";

const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;
// Asked, not answered yet: pending is the truth (invariant 8), "idle" would say nobody works on it.
const ASKED: Snapshot = Object.freeze({ status: "pending" }) as Snapshot;

type Watched = { kind: WorkKind; req: unknown; listeners: Set<() => void>; local?: () => void };

/** Subscribes to a key of the tab's own replica (after a fallback): returns the unsubscribe. */
export type LocalSubscribe = (kind: WorkKind, req: unknown, listener: () => void) => () => void;

/**
 * What a tab shows in SharedWorker mode: the worker's snapshots as last pushed, kept here so that
 * `snapshot()` is synchronous (useSyncExternalStore), and the keys the tab subscribes to (re-sent
 * to each new worker).
 */
export class RemoteViews {
  private readonly snaps = new Map<string, Snapshot>();
  private readonly infos = new Map<string, ResultInfo>();
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly send: (message: TabMessage) => void,
    /** Whether this tab has asked for the key and waits (then it reads pending before the worker answers). */
    private readonly asked: (key: string) => boolean,
  ) {}

  /** The subscriptions, as a new worker needs them. */
  resend(): void {
    for (const [key, w] of this.watched) this.send({ t: "sub", kind: w.kind, key, req: w.req });
  }

  set(key: string, snap: Snapshot, info: ResultInfo | undefined): void {
    if (info) this.infos.set(key, info);
    else this.infos.delete(key);
    const known = this.snaps.get(key);
    if (known !== undefined && sameSnapshot(known, snap)) return;
    this.snaps.set(key, snap);
    this.notify(key);
  }

  /** A waiter came or went for a key the worker has not described yet: its pending/idle changed. */
  asking(key: string): void {
    if (!this.snaps.has(key)) this.notify(key);
  }

  private notify(key: string): void {
    const w = this.watched.get(key);
    if (w) callAll(w.listeners, [], "snapshot");
  }

  read(key: string): Snapshot {
    return this.snaps.get(key) ?? (this.asked(key) ? ASKED : IDLE);
  }

  info(key: string): ResultInfo | undefined {
    return this.infos.get(key);
  }

  watch(kind: WorkKind, key: string, req: unknown, listener: () => void): () => void {
    let w = this.watched.get(key);
    if (!w) {
      w = { kind, req, listeners: new Set() };
      this.watched.set(key, w);
      this.send({ t: "sub", kind, key, req });
    }
    const entry = w;
    const fn = () => listener();
    entry.listeners.add(fn);
    return () => {
      entry.listeners.delete(fn);
      if (entry.listeners.size > 0 || this.watched.get(key) !== entry) return;
      this.watched.delete(key);
      entry.local?.();
      this.send({ t: "unsub", key });
    };
  }

  /**
   * The tab became a replica of its own (the worker failed): each key it shows follows that
   * replica from now on; the listeners and their unsubscribes stay as they were.
   */
  moveTo(subscribe: LocalSubscribe): void {
    for (const entry of this.watched.values()) {
      entry.local = subscribe(entry.kind, entry.req, () => callAll(entry.listeners, [], "snapshot"));
      callAll(entry.listeners, [], "snapshot");
    }
  }

  /** The requests this tab shows (by key): only a tab that asked knows the headers and body behind a key. */
  shown(): { key: string; kind: WorkKind; req: unknown }[] {
    return [...this.watched].map(([key, w]) => ({ key, kind: w.kind, req: w.req }));
  }

  clear(): void {
    for (const entry of this.watched.values()) entry.local?.();
    this.watched.clear();
  }
}

/** Snapshots from the worker are fresh clones: keep the old object when nothing changed, so React skips the render. */
function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  if (
    a.status !== b.status ||
    a.claim?.replicaId !== b.claim?.replicaId ||
    a.claim?.mine !== b.claim?.mine ||
    a.claim?.stale !== b.claim?.stale
  )
    return false;
  if (a.error?.message !== b.error?.message || a.error?.status !== b.error?.status) return false;
  return a.data === b.data || JSON.stringify(a.data) === JSON.stringify(b.data);
}
