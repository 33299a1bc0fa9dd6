import type { LockManagerLike } from "../src/core/locks.ts";

type Mode = "exclusive" | "shared";
type Holder = { tag: string; token: object; mode: Mode };

/**
 * An in-memory exclusive lock manager with the Web Locks semantics the store relies on: requests
 * queue, a lock is held until the callback's promise settles, a queued request can be aborted.
 * `crash(tag)` frees every lock a "tab" holds, as the browser does when a tab dies.
 */
export class FakeLocks {
  private readonly held = new Map<string, Holder>();
  private readonly queue = new Map<string, (() => void)[]>();
  /** The mode each queued request asked for (granted as exclusive all the same, reported as asked) and its "tab", for query's `pending`. */
  private readonly modes = new WeakMap<() => void, { mode: Mode; clientId: string }>();

  forTab(tag: string): LockManagerLike & {
    query(): Promise<{
      held: { name: string; mode: Mode; clientId: string }[];
      pending: { name: string; mode: Mode; clientId?: string }[];
    }>;
  } {
    return {
      // What a new tab asks to learn which replica worker lives (Web Locks' query: the held locks,
      // and the requests waiting, each in the mode asked, with its "tab" as the client's id).
      query: async () => ({
        held: [...this.held].map(([name, h]) => ({ name, mode: h.mode, clientId: h.tag })),
        pending: [...this.queue].flatMap(([name, list]) =>
          list.map((grant) => ({ name, mode: this.modes.get(grant)?.mode ?? "exclusive", clientId: this.modes.get(grant)?.clientId })),
        ),
      }),
      request: (name, options, callback) =>
        new Promise((resolve, reject) => {
          const grant = () => {
            const token = {};
            this.held.set(name, { tag, token, mode: options.mode ?? "exclusive" });
            Promise.resolve()
              .then(() => callback({ name }))
              .then(resolve, reject)
              .finally(() => this.free(name, token));
          };
          if (options.signal?.aborted) return reject(new DOMException("aborted", "AbortError"));
          if (!this.held.has(name)) return grant();
          if (options.ifAvailable) return resolve(callback(null));
          const list = this.queue.get(name) ?? [];
          this.queue.set(name, list);
          list.push(grant);
          this.modes.set(grant, { mode: options.mode ?? "exclusive", clientId: tag });
          options.signal?.addEventListener("abort", () => {
            const i = list.indexOf(grant);
            if (i >= 0) list.splice(i, 1);
            reject(new DOMException("aborted", "AbortError"));
          });
        }),
    };
  }

  holders(): string[] {
    return [...this.held.values()].map((h) => h.tag);
  }

  /** The names of the locks a "tab" holds. */
  heldBy(tag: string): string[] {
    return [...this.held].filter(([, h]) => h.tag === tag).map(([name]) => name);
  }

  /** The browser releases a dead tab's locks whatever its callbacks were doing. */
  crash(tag: string): void {
    for (const [name, h] of [...this.held]) if (h.tag === tag) this.free(name, h.token);
  }

  private free(name: string, token: object): void {
    if (this.held.get(name)?.token !== token) return;
    this.held.delete(name);
    this.queue.get(name)?.shift()?.();
  }
}
