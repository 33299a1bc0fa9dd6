import type * as Y from "yjs";

/**
 * The first write of a tick goes out at once (a lone claim reaches the other replicas without
 * delay); the writes that follow it in the same tick go into one transaction a microtask later: a
 * page that asks for a thousand keys at once sends two updates, not a thousand (each of which
 * every peer would have to index).
 */
export class WriteBatch {
  private queued: (() => void)[] = [];
  private open = false;
  private stopped = false;

  constructor(
    private readonly doc: Y.Doc,
    private readonly origin: unknown,
  ) {}

  queue(fn: () => void): void {
    if (this.stopped) return;
    if (!this.open) {
      this.open = true;
      queueMicrotask(() => this.flush());
      this.doc.transact(fn, this.origin);
      return;
    }
    this.queued.push(fn);
  }

  flush(): void {
    this.open = false;
    if (this.stopped || this.queued.length === 0) return;
    const fns = this.queued;
    this.queued = [];
    this.doc.transact(() => fns.forEach((fn) => fn()), this.origin);
  }

  stop(): void {
    this.stopped = true;
    this.queued = [];
  }
}
