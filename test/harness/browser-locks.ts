/**
 * One browser's Web Locks under Node, as the Web Locks spec grants them: exclusive locks have one
 * holder, shared ones many, and requests wait in order per name (a shared request behind a queued
 * exclusive one waits too); `ifAvailable` calls back with null at once when the lock cannot be
 * granted now; `steal` takes the lock from its holders (their requests reject with AbortError) ahead
 * of the queue; a `signal` that aborts before the grant takes the request out of the queue (its
 * reason rejects it). Callbacks run later than `request` returns, never inside it. `query()` reports the
 * held and pending locks (the tabs' flush counts tabs by it); `extra`: names reported held by
 * nobody here, e.g. a frozen tab that never answers.
 */
type Mode = "exclusive" | "shared";
type Options = { mode?: Mode; ifAvailable?: boolean; steal?: boolean; signal?: AbortSignal };
type Callback = (lock: { name: string; mode: Mode } | null) => unknown;
type Request = { name: string; mode: Mode; grant: () => void };
type Held = { name: string; mode: Mode; steal: (error: DOMException) => void };

const domError = (message: string, name: string) => new DOMException(message, name);
/** Later than the call, as the browser's task (a microtask: tests with fake timers need no tick). */
const later = () => Promise.resolve();

export function browserLocks(extra: string[] = []) {
  const held = new Set<Held>();
  const queue: Request[] = [];

  const grantable = (r: Pick<Request, "name" | "mode">, ahead: Request[]): boolean =>
    !ahead.some((q) => q.name === r.name) &&
    ![...held].some((h) => h.name === r.name && (r.mode === "exclusive" || h.mode === "exclusive"));

  /** Grants, per name, the requests at the head of the queue that can be granted now. */
  const process = (): void => {
    for (let i = 0; i < queue.length;) {
      const r = queue[i]!;
      if (!grantable(r, queue.slice(0, i))) i += 1;
      else {
        queue.splice(i, 1);
        r.grant();
      }
    }
  };

  function request(name: string, optionsOrCallback: Options | Callback, maybeCallback?: Callback): Promise<unknown> {
    const [options, callback] = typeof optionsOrCallback === "function" ? [{}, optionsOrCallback] : [optionsOrCallback, maybeCallback!];
    const { mode = "exclusive", ifAvailable = false, steal = false, signal } = options;
    if (name.startsWith("-")) return Promise.reject(domError(`lock names may not start with "-": ${name}`, "NotSupportedError"));
    if (steal && (ifAvailable || mode !== "exclusive" || signal))
      return Promise.reject(domError("steal goes with neither ifAvailable, shared mode nor signal", "NotSupportedError"));
    if (ifAvailable && signal) return Promise.reject(domError("ifAvailable goes with no signal", "NotSupportedError"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        let stolen = false;
        const lock: Held = {
          name,
          mode,
          steal: (error) => {
            stolen = true;
            held.delete(lock);
            reject(error);
          },
        };
        held.add(lock);
        const release = (): void => {
          if (stolen) return;
          held.delete(lock);
          process();
        };
        void later()
          .then(() => callback({ name, mode }))
          .then(
            (value) => (release(), resolve(value)),
            (error: unknown) => (release(), reject(error)),
          );
      };
      if (steal) {
        for (const h of [...held]) if (h.name === name) h.steal(domError("the lock was stolen", "AbortError"));
        grant();
        return;
      }
      const r: Request = { name, mode, grant };
      if (ifAvailable && !grantable(r, queue)) {
        void later()
          .then(() => callback(null))
          .then(resolve, reject);
        return;
      }
      queue.push(r);
      signal?.addEventListener("abort", () => {
        const i = queue.indexOf(r);
        if (i < 0) return; // granted already: the signal no longer reaches it
        queue.splice(i, 1);
        reject(signal.reason);
        process();
      });
      process();
    });
  }

  return {
    request,
    query: async () => ({
      held: [...[...held].map(({ name, mode }) => ({ name, mode })), ...extra.map((name) => ({ name, mode: "exclusive" as const }))],
      pending: queue.map(({ name, mode }) => ({ name, mode })),
    }),
  };
}
