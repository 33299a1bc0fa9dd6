import type * as Y from "yjs";

/**
 * The first write of a tick goes out at once (a lone claim reaches the other replicas without
 * delay); the writes that follow it in the same tick go into one transaction a microtask later: a
 * page that asks for a thousand keys at once sends two updates, not a thousand (each of which
 * every peer would have to index).
 *
 * `before` runs right before the transaction that holds `fn`, with the other `before`s of that
 * transaction: a claim's fence must leave just ahead of the claim's update, not a microtask
 * earlier with other traffic in between.
 */
export class WriteBatch {
  private queued: (() => void)[] = [];
  private before: (() => void)[] = [];
  private open = false;
  private stopped = false;

  constructor(
    private readonly doc: Y.Doc,
    private readonly origin: unknown,
  ) {}

  queue(fn: () => void, before?: () => void): void {
    if (this.stopped) return;
    if (!this.open) {
      this.open = true;
      queueMicrotask(() => this.flush());
      before?.();
      this.doc.transact(fn, this.origin);
      return;
    }
    this.queued.push(fn);
    if (before) this.before.push(before);
  }

  flush(): void {
    this.open = false;
    if (this.stopped || this.queued.length === 0) return;
    const fns = this.queued;
    const before = this.before;
    this.queued = [];
    this.before = [];
    before.forEach((fn) => fn());
    this.doc.transact(() => fns.forEach((fn) => fn()), this.origin);
  }

  stop(): void {
    this.stopped = true;
    this.queued = [];
    this.before = [];
  }
}
