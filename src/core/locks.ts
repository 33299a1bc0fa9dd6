/** The part of `navigator.locks` we use (feature-detected: Node 20 has none). */
export type LockManagerLike = {
  request(
    name: string,
    options: { mode?: "exclusive" | "shared"; signal?: AbortSignal; ifAvailable?: boolean },
    callback: (lock: unknown) => unknown,
  ): Promise<unknown>;
  /** The browser's lock state (optional: in-memory lock managers may not have it). */
  query?(): Promise<{ held?: { name?: string }[]; pending?: { name?: string; mode?: string }[] }>;
};

/** Every replica's lifetime lock is named with this prefix (a tab can see whether others live). */
export const REPLICA_LOCK_PREFIX = "shared-fetch:replica:";

export function lockName(replicaId: string): string {
  return `${REPLICA_LOCK_PREFIX}${replicaId}`;
}

/**
 * A page's or a worker's: Node's (24.5+) are the process's, where a server render's store, never
 * destroyed, would hold its replica lock for the process's life (pass `locks` to use them there).
 */
export function detectLocks(): LockManagerLike | undefined {
  const g = globalThis as { navigator?: { locks?: LockManagerLike }; document?: unknown; WorkerGlobalScope?: unknown };
  const locks = g.navigator?.locks;
  return (g.document || g.WorkerGlobalScope) && typeof locks?.request === "function" ? locks : undefined;
}

/**
 * `locks.request`, a synchronous throw made a rejection: a manager given as `locks` may throw
 * instead of rejecting, and that is the same refusal, not an error out of createSharedFetchStore
 * or out of a snapshot that watches a claimant (into React).
 */
export const requestLock = <A extends unknown[]>(locks: { request(...args: A): unknown }, ...args: A): Promise<unknown> =>
  new Promise((resolve) => resolve(locks.request(...args)));

/** Dead replicas remembered, so that their leftover claims do not make us queue on their locks again. */
const MAX_DEAD = 256;

/**
 * Web Locks as the same-browser failure event. Each replica holds a lock named after itself for
 * its whole life: the browser releases it when the tab closes or crashes (≈20 ms measured here).
 * A replica that sees a claim from its own browser queues on the claimant's lock; being granted it
 * means the claimant is gone — never "done" (a per-request lock would race BroadcastChannel: a
 * follower could acquire it before the result message arrived, and fetch again).
 */
export class ReplicaLocks {
  private release: (() => void) | undefined;
  private controller = new AbortController();
  private readonly watching = new Set<string>();
  /** Replicas whose lock this replica was granted: dead, never watched again (a re-watch would be granted at once, for ever). */
  private readonly dead = new Set<string>();
  /** Key locks this replica holds: a crash (or stop) lets them go, as the browser does. */
  private readonly keys = new Set<() => void>();
  /** True once this replica's own lock is held: only then may its claims name its browser. */
  held = false;
  /** Stopped for good (destroy, a simulated crash): a key lock granted after is let go at once. */
  private stopped = false;
  /**
   * Web Locks refused a key's lock or a watch (not withdrawn by us). Claims then settle by the
   * window and claimants of this browser go stale by their lease, as across devices: a claim
   * waiting on a refused lock, or a claimant counted as watched, would leave its key pending for
   * good. Key locks are still asked for: a refusal costs a claim one rejected request before the
   * same window, and a lock granted after all is held harmlessly; tracking the refusing manager
   * to skip them costs the page bytes for nothing.
   */
  refused = false;
  /** Settles when the grant of hold() arrived (or failed): the first claim waits for it. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly locks: LockManagerLike,
    private readonly replicaId: string,
    /** `refused`: not gone, but no longer watched (Web Locks refused it): its lease applies from now. */
    private readonly onGone: (replicaId: string, refused?: boolean) => void,
  ) {}

  hold(): void {
    if (this.release) return;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (this.release = release = resolve));
    let granted!: () => void;
    this.ready = new Promise<void>((resolve) => (granted = resolve));
    requestLock(this.locks, lockName(this.replicaId), { mode: "exclusive" }, () => {
      // Held unless a drop came since (a grant may come after a hide). The request's end says
      // nothing: after a hide and a show, the Web Locks spec grants the new request before the old
      // one's promise settles, and only drop() lets a live page's lock go (nothing steals it).
      this.held = this.release === release;
      granted();
      return released;
    }).then(granted, granted);
  }

  /**
   * Queue on another replica's lock; `onGone` fires when the browser grants it to us. False: not
   * watched, as Web Locks refused a watch, and its claims go stale by their lease.
   */
  watch(replicaId: string): boolean {
    if (this.refused || replicaId === this.replicaId || this.watching.has(replicaId) || this.dead.has(replicaId)) return !this.refused;
    this.watching.add(replicaId);
    const { signal } = this.controller;
    // Shared: every replica watching the claimant is woken by its death at once, not one by one.
    requestLock(this.locks, lockName(replicaId), { mode: "shared", signal }, () => {
      this.watching.delete(replicaId);
      this.dead.add(replicaId);
      // A long-lived page sees many tabs die: forget the oldest (one still claiming is watched
      // again, granted at once, and found dead again).
      if (this.dead.size > MAX_DEAD) this.dead.delete(this.dead.values().next().value!);
      this.onGone(replicaId);
    }).catch((error: unknown) => {
      this.watching.delete(replicaId);
      if (this.refuse(error, signal)) this.onGone(replicaId, true);
    });
    return true;
  }

  /** A replica granted to us as dead showed a sign of life (see Liveness.revive): it may be watched again. */
  forget(replicaId: string): void {
    this.dead.delete(replicaId);
  }

  /**
   * Holds the key's lock once the browser grants it (other tabs asking for it queue behind us);
   * resolves with the function that lets it go. Rejects when `signal` aborts first.
   */
  holdKey(key: string, signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      requestLock(
        this.locks,
        `shared-fetch:key:${key}`,
        { mode: "exclusive", signal },
        () =>
          // Its claims may still ask (a simulated crash reads nothing more): never granted then.
          this.stopped ||
          new Promise<void>((release) => {
            const letGo = () => {
              this.keys.delete(letGo);
              release();
            };
            this.keys.add(letGo);
            resolve(letGo);
          }),
      ).catch((error: unknown) => {
        this.refuse(error, signal);
        reject(error);
      });
    });
  }

  /** A rejection not of our own abort is a refusal (see `refused`); the console says so once. */
  private refuse(error: unknown, signal: AbortSignal): boolean {
    if (signal.aborted) return false;
    if (!this.refused) console.warn("shared-fetch: locks refused", error);
    return (this.refused = true);
  }

  /** Let go of our own lock (page frozen into the back/forward cache, or destroy). */
  drop(): void {
    this.release?.();
    this.release = undefined;
    this.held = false;
  }

  stop(): void {
    this.stopped = true;
    this.drop();
    for (const release of [...this.keys]) release();
    this.controller.abort();
    this.controller = new AbortController();
    this.watching.clear();
  }
}
