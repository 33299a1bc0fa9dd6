/** The part of `navigator.locks` we use (feature-detected: Node 20 has none). */
export type LockManagerLike = {
  request(name: string, options: { mode?: "exclusive" | "shared"; signal?: AbortSignal; ifAvailable?: boolean }, callback: (lock: unknown) => unknown): Promise<unknown>;
};

export function lockName(replicaId: string): string {
  return `shared-fetch:replica:${replicaId}`;
}

export function detectLocks(): LockManagerLike | undefined {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks && typeof nav.locks.request === "function" ? nav.locks : undefined;
}

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
  /** True once this replica's own lock is held: only then may its claims name its browser. */
  held = false;
  /** Settles when the grant of hold() arrived (or failed): the first claim waits for it. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly locks: LockManagerLike,
    private readonly replicaId: string,
    private readonly onGone: (replicaId: string) => void,
  ) {}

  hold(): void {
    if (this.release) return;
    const released = new Promise<void>((resolve) => (this.release = resolve));
    let granted!: () => void;
    this.ready = new Promise<void>((resolve) => (granted = resolve));
    this.locks
      .request(lockName(this.replicaId), { mode: "exclusive" }, () => {
        this.held = true;
        granted();
        return released;
      })
      .catch(() => {})
      .finally(() => {
        this.held = false;
        granted();
      });
  }

  /** Queue on another replica's lock; `onGone` fires when the browser grants it to us. */
  watch(replicaId: string): void {
    if (replicaId === this.replicaId || this.watching.has(replicaId)) return;
    this.watching.add(replicaId);
    this.locks
      .request(lockName(replicaId), { mode: "exclusive", signal: this.controller.signal }, () => {
        this.watching.delete(replicaId);
        this.onGone(replicaId);
      })
      .catch(() => this.watching.delete(replicaId));
  }

  /** Let go of our own lock (page frozen into the back/forward cache, or destroy). */
  drop(): void {
    this.release?.();
    this.release = undefined;
    this.held = false;
  }

  stop(): void {
    this.drop();
    this.controller.abort();
    this.controller = new AbortController();
    this.watching.clear();
  }
}
