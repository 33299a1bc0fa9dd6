import { callAll } from "../core/emitter.ts";
import { abortError } from "../core/errors.ts";
import { isFresh } from "../core/freshness.ts";
import type { Snapshot } from "../core/types.ts";
import type { ResultInfo, TabMessage, WorkKind } from "./protocol.ts";

const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;
// Asked, not answered yet: pending is the truth (invariant 8), "idle" would say nobody works on it.
const ASKED: Snapshot = Object.freeze({ status: "pending" }) as Snapshot;

/**
 * How many keys nothing in the tab holds (no subscription, look or ask) keep their last view: a
 * read right after the last unsubscribe (a remount, an answer read once its ask ended, a shown
 * error looked past) finds it, and a tab that visits thousands of keys keeps no more than this.
 */
export const KEPT_UNHELD = 128;

/**
 * What this tab's open asks for a key want from the worker: "newer" when one makes it fetch again
 * though an outcome is recorded (a refetch, a freshness demand the shown result misses), "any" else.
 */
export type Wants = "newer" | "any" | undefined;

/** `shown`: what the listeners were last told of (they hear only of a change). `hearing`: see heard. */
type Watched = {
  kind: WorkKind;
  req: unknown;
  listeners: Set<() => void>;
  shown: Snapshot;
  local?: () => void;
  heard?: true;
  hearing?: Set<() => void>;
};

/** Subscribes to a key of the tab's own replica (after a fallback): returns the unsubscribe. */
export type LocalSubscribe = (kind: WorkKind, req: unknown, listener: () => void) => () => void;

/**
 * What a tab shows in SharedWorker mode: the worker's snapshots as last pushed, kept here so that
 * `snapshot()` is synchronous (useSyncExternalStore), and the keys the tab subscribes to (re-sent
 * to each new worker).
 *
 * While this tab has asked for a key and no answer came, the view reads pending whatever the
 * worker last pushed (invariant 8): a push may predate the worker's handling of the ask (the
 * answer to a `sub`, a new worker's first look at a re-sent ask), and once the worker handles it
 * its store reads pending at once until it answers, the answer coming with the last push. So an
 * idle push during an ask is stale, as is a recorded outcome during an ask that wants a newer one.
 */
export class RemoteViews {
  private readonly snaps = new Map<string, Snapshot>();
  private readonly infos = new Map<string, ResultInfo>();
  private readonly watched = new Map<string, Watched>();
  /** The pending view over an outcome shown while a newer one is asked for, kept while it is the same. */
  private readonly over = new Map<string, { from: Snapshot; view: Snapshot }>();
  /** Keys asked once of the worker (look), with who waits for the answer (re-sent to each new worker). */
  private readonly looks = new Map<string, { kind: WorkKind; req: unknown; done: Set<() => void> }>();
  /** Keys kept though nothing holds them, the least recently let go first (see KEPT_UNHELD). */
  private readonly unheld = new Set<string>();

  constructor(
    private readonly send: (message: TabMessage) => void,
    private readonly wants: (key: string) => Wants,
  ) {}

  /** The subscriptions, as a new worker needs them. */
  resend(): void {
    for (const [key, w] of this.watched) this.send({ t: "sub", kind: w.kind, key, req: w.req });
    for (const [key, l] of this.looks) this.send({ t: "look", kind: l.kind, key, req: l.req });
  }

  /** The worker's push: the listeners hear of it if the view changed. */
  set(key: string, snap: Snapshot, info: ResultInfo | undefined): void {
    this.put(key, snap, info);
    this.changed(key);
  }

  /** Keeps the worker's snapshot without telling anyone yet (an answer: its ask goes first, see changed). */
  put(key: string, snap: Snapshot, info: ResultInfo | undefined): void {
    const w = this.watched.get(key);
    if (w) w.heard = true;
    this.keep(key, snap, info);
    if (w?.hearing) callAll(w.hearing, [], "heard");
    this.answerLook(key);
  }

  /**
   * Asks the worker once what it holds for the key, where this tab does not hear of it, and calls
   * `done` with the answer kept (`read`): the worker only reads, it subscribes to nothing. It calls
   * `done` again at each result recorded after (the worker tells, see TabSession.look), as a
   * per-tab replica's disabled query shows one at its next render; until the returned `off`, whose
   * last one ends the look in the worker too.
   */
  look(kind: WorkKind, key: string, req: unknown, done: () => void): () => void {
    if (this.hears(key)) return () => {};
    let l = this.looks.get(key);
    if (!l) {
      this.looks.set(key, (l = { kind, req, done: new Set() }));
      this.unheld.delete(key);
      this.send({ t: "look", kind, key, req });
    }
    const { done: dones } = l;
    dones.add(done);
    return () => {
      if (dones.delete(done) && !dones.size && this.looks.get(key)?.done === dones) {
        this.looks.delete(key);
        this.send({ t: "unlook", key });
        this.changed(key);
      }
    };
  }

  private answerLook(key: string, last?: boolean): void {
    const l = this.looks.get(key);
    if (!l) return;
    if (last) this.looks.delete(key);
    callAll(l.done, [], "look");
  }

  private keep(key: string, snap: Snapshot, info: ResultInfo | undefined): void {
    const sameRecord = sameInfo(this.infos.get(key), info);
    if (info) this.infos.set(key, info);
    else this.infos.delete(key);
    const known = this.snaps.get(key) ?? IDLE;
    // An unchanged view keeps its object (no render), idle before any push included. A new
    // revision is a change even with the same data, as a per-tab store's new record is.
    if (sameRecord && sameSnapshot(known, snap)) {
      if (!this.snaps.has(key)) this.snaps.set(key, IDLE);
      return;
    }
    // Another view of the same record (a claim came, an error beside it) keeps the record's data
    // object, as a per-tab store's snapshots do: the hooks' bridge tells a record it already
    // handed over by identity, and a new clone would set it again over an error or over data the
    // app set (setQueryData).
    const keep = sameRecord && known.data !== undefined && sameData(known.data, snap.data);
    this.snaps.set(key, keep ? (Object.freeze({ ...snap, data: known.data }) as Snapshot) : snap);
  }

  /** The key's view may have changed (a push, an ask that came, was answered or withdrawn): its listeners hear of it if it did. */
  changed(key: string): void {
    const wants = this.wants(key);
    if (wants !== "newer") this.over.delete(key);
    const w = this.watched.get(key);
    this.unheld.delete(key);
    // Nothing holds the key: it is kept as the most recently let go, and past the bound the least
    // recently let go is forgotten.
    if (!w && !wants && !this.looks.has(key))
      for (const old of this.unheld.add(key)) {
        if (this.unheld.size <= KEPT_UNHELD) return;
        this.unheld.delete(old);
        this.snaps.delete(old);
        this.infos.delete(old);
      }
    if (!w) return;
    const now = this.read(key);
    if (now === w.shown) return;
    w.shown = now;
    callAll(w.listeners, [], "snapshot");
  }

  /** The same object until the view changes (useSyncExternalStore). */
  read(key: string): Snapshot {
    const snap = this.snaps.get(key);
    const wants = this.wants(key);
    // A key shown again after it was forgotten: what the worker holds comes with its answer.
    if (wants === undefined) return snap ?? (this.watched.has(key) ? ASKED : IDLE);
    if (snap === undefined || snap.status === "idle") return ASKED;
    if (wants === "any" || snap.status === "pending") return snap;
    const known = this.over.get(key);
    if (known?.from === snap) return known.view;
    // What the worker's store shows while it fetches again: the outcome kept, pending.
    const view = Object.freeze({ ...snap, status: "pending" }) as Snapshot;
    this.over.set(key, { from: snap, view });
    return view;
  }

  /**
   * Whether an ensure with this freshness demand will make the worker fetch again though it shows
   * a result: judged as the worker's engine judges it (the result's `at` on this browser's clock),
   * a moment earlier, as of the ask's time (`askedAt`), as that store does: a later read may be a ms
   * later (a busy machine). An error's age is not told to tabs: the worker's push says.
   */
  outdated(key: string, maxAgeMs: number | undefined, askedAt = Date.now()): boolean {
    if (maxAgeMs === undefined || this.snaps.get(key)?.status !== "success") return false;
    return !isFresh(this.infos.get(key)?.at, askedAt, maxAgeMs);
  }

  info(key: string): ResultInfo | undefined {
    return this.infos.get(key);
  }

  /**
   * Whether this tab hears of the key now (it asks for it, or shows it and the worker answered
   * since): pushes stop with its last listener, so after that, and until the worker answers the
   * next subscription, what it keeps is as of the last answer.
   */
  hears(key: string): boolean {
    return !!this.watched.get(key)?.heard || this.wants(key) !== undefined;
  }

  /**
   * Resolves once the worker has answered a subscription to the key (so that `read` is what it
   * holds now), subscribing till then: a look that sends no request, whatever the worker holds.
   * Also once the tab hears from no worker any more (its own replica, or destroyed).
   */
  heard(kind: WorkKind, key: string, req: unknown, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal.reason));
      const off = this.watch(kind, key, req, () => {});
      const w = this.watched.get(key)!;
      if (w.heard) return (off(), resolve());
      const end = (): void => {
        w.hearing!.delete(end);
        signal?.removeEventListener("abort", abort);
        off();
      };
      const heard = (): void => (end(), resolve());
      const abort = (): void => (end(), reject(abortError(signal!.reason)));
      (w.hearing ??= new Set()).add(heard);
      signal?.addEventListener("abort", abort, { once: true });
    });
  }

  watch(kind: WorkKind, key: string, req: unknown, listener: () => void): () => void {
    let w = this.watched.get(key);
    if (!w) {
      this.watched.set(key, (w = { kind, req, listeners: new Set(), shown: IDLE }));
      this.unheld.delete(key);
      w.shown = this.read(key);
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
      this.changed(key);
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
    this.stopHearing();
  }

  /** The requests this tab shows (by key): only a tab that asked knows the headers and body behind a key. */
  shown(): { key: string; kind: WorkKind; req: unknown }[] {
    return [...this.watched].map(([key, w]) => ({ key, kind: w.kind, req: w.req }));
  }

  clear(): void {
    // No worker will answer a subscription made after the store was destroyed: it would read pending for good.
    this.watch = () => () => {};
    for (const entry of this.watched.values()) entry.local?.();
    const watched = [...this.watched.values()];
    this.watched.clear();
    this.over.clear();
    this.stopHearing(watched);
  }

  /** No worker will answer: what the tab's store reads now is the answer to each `heard`. */
  private stopHearing(watched = [...this.watched.values()]): void {
    for (const w of watched) if (w.hearing) callAll(w.hearing, [], "heard");
    for (const key of [...this.looks.keys()]) this.answerLook(key, true);
  }
}

/** Snapshots from the worker are fresh clones: keep the old object when nothing changed, so React skips the render. */
function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  if (
    a.status !== b.status ||
    a.claim?.replicaId !== b.claim?.replicaId ||
    a.claim?.mine !== b.claim?.mine ||
    a.claim?.stale !== b.claim?.stale ||
    a.claim?.failed?.n !== b.claim?.failed?.n
  )
    return false;
  if (a.error?.message !== b.error?.message || a.error?.status !== b.error?.status) return false;
  return sameData(a.data, b.data);
}

function sameData(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function sameInfo(a: ResultInfo | undefined, b: ResultInfo | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.rev === b.rev && a.at === b.at);
}
