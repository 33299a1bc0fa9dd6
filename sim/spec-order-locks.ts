import type { LockManagerLike } from "../src/core/locks.ts";

type Mode = "exclusive" | "shared";
type Held = { name: string; mode: Mode; tag: string };
type Request = Held & {
  callback: (lock: unknown) => unknown;
  signal?: AbortSignal;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  granted?: boolean;
};

/**
 * A lock manager that settles in the order the Web Locks spec writes down (w3c.github.io/web-locks,
 * "waiting promise settles", "process the lock request queue"), where FakeLocks and the engines
 * take a shortcut. When a held lock's callback promise settles, the lock task queue releases it,
 * which grants the next request at once and queues its callback as a task; only then is the
 * request's own promise resolved, by a task queued behind that one. So the next holder's callback
 * runs before the previous holder's `request()` promise settles. Every step of the lock task queue
 * and every task is a setTimeout(0) of its own (fake timers run them in order).
 */
export class SpecOrderLocks {
  private readonly held = new Map<string, Held[]>();
  private readonly queues = new Map<string, Request[]>();

  forTab(tag: string): LockManagerLike & { query(): Promise<{ held: { name: string; mode: Mode }[] }> } {
    return {
      query: async () => ({ held: [...this.held.values()].flat().map(({ name, mode }) => ({ name, mode })) }),
      request: (name, options, callback) =>
        new Promise((resolve, reject) => {
          const { signal, ifAvailable } = options;
          if (signal?.aborted) return reject(signal.reason);
          const request: Request = { name, mode: options.mode ?? "exclusive", tag, callback, signal, resolve, reject };
          signal?.addEventListener("abort", () => {
            if (request.granted) return;
            this.step(() => this.remove(request));
            reject(signal.reason);
          });
          this.step(() => {
            if (ifAvailable && !this.grantable(request)) return this.task(() => resolve(callback(null)));
            this.queueOf(name).push(request);
            this.process(name);
          });
        }),
    };
  }

  /** Names of the locks `tag` holds now. */
  heldBy(tag: string): string[] {
    return [...this.held.values()]
      .flat()
      .filter((h) => h.tag === tag)
      .map((h) => h.name);
  }

  /** The browser releases a dead tab's locks and drops its queued requests. */
  crash(tag: string): void {
    this.step(() => {
      for (const queue of this.queues.values()) queue.splice(0, queue.length, ...queue.filter((r) => r.tag !== tag));
      for (const [name, list] of [...this.held]) {
        this.held.set(
          name,
          list.filter((h) => h.tag !== tag),
        );
        this.process(name);
      }
    });
  }

  private queueOf(name: string): Request[] {
    let queue = this.queues.get(name);
    if (!queue) this.queues.set(name, (queue = []));
    return queue;
  }

  private grantable(request: Request): boolean {
    const held = this.held.get(request.name) ?? [];
    return held.length === 0 || (request.mode === "shared" && held.every((h) => h.mode === "shared"));
  }

  private process(name: string): void {
    const queue = this.queueOf(name);
    while (queue.length && this.grantable(queue[0]!)) {
      const request = queue.shift()!;
      const lock: Held = { name, mode: request.mode, tag: request.tag };
      this.held.set(name, [...(this.held.get(name) ?? []), lock]);
      this.task(() => {
        if (request.signal?.aborted) return this.step(() => this.release(lock));
        request.granted = true;
        let waiting: Promise<unknown>;
        try {
          waiting = Promise.resolve(request.callback({ name, mode: request.mode }));
        } catch (error) {
          waiting = Promise.reject(error);
        }
        const settled = () =>
          this.step(() => {
            this.release(lock);
            this.task(() => request.resolve(waiting));
          });
        waiting.then(settled, settled);
      });
    }
  }

  private release(lock: Held): void {
    const list = this.held.get(lock.name) ?? [];
    if (!list.includes(lock)) return; // a crash let it go already
    this.held.set(
      lock.name,
      list.filter((h) => h !== lock),
    );
    this.process(lock.name);
  }

  private remove(request: Request): void {
    const queue = this.queueOf(request.name);
    const i = queue.indexOf(request);
    if (i >= 0) queue.splice(i, 1);
    this.process(request.name);
  }

  /** A step of the lock task queue (a parallel queue in the spec). */
  private step(fn: () => void): void {
    setTimeout(fn, 0);
  }

  /** A task queued on the requesting page's event loop. */
  private task(fn: () => void): void {
    setTimeout(fn, 0);
  }
}
