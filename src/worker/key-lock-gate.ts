import { abortError } from "../core/errors.ts";
import { requestLock } from "../core/locks.ts";
import type { LockManagerLike } from "./port.ts";

/** Key locks are named with this prefix (ReplicaLocks.holdKey). */
export const KEY_LOCK_PREFIX = "shared-fetch:key:";

type Parked = {
  name: string;
  options: Parameters<LockManagerLike["request"]>[1];
  callback: (lock: unknown) => unknown;
  settle: Settle;
  /** A request for this lock is queued at the browser already (see `arm`). */
  queued?: boolean;
};
type Settle = { resolve: (value: unknown) => void; reject: (error: unknown) => void };

export type KeyLockGate = {
  locks: LockManagerLike;
  /** Promotion: the held-back requests go to the browser (or, queued already, take their grant). */
  open(): void;
  /** Queues at the browser, in advance, each held-back request `queueAhead` now allows. */
  arm(): void;
  /** Settles once each request queued in advance and pending at `open` got its grant (or failed). */
  granted(): Promise<void>;
  readonly parked: number;
};

/**
 * The Web Locks a standby worker's store sees: every lock as the browser grants it, except the
 * keys' locks, which are held back until `open()` (the standby's promotion). Without a key's lock
 * no store writes a claim, so the standby can wait on what its tabs ask for in advance — its
 * engine queues for the live worker's replica lock and decides as any store does — yet never
 * claims or sends a request while the live worker lives (one request per key). At promotion the
 * held-back requests go to the browser in the order they were made.
 *
 * `queueAhead(name)` says the live worker holds that key's lock now (its claim stands in the doc):
 * the request is then queued at the browser in advance, behind the live worker, so the browser
 * grants it with the dead worker's release instead of after a request made at promotion (a round
 * trip through a browser that is busy with the crash). Granted before promotion, the live worker
 * let the key go while it lives: the lock is let go at once, in the same task, and the request is
 * held back again until `arm` finds it held by the live worker once more.
 */
export function keyLockGate(locks: LockManagerLike, queueAhead: (name: string) => boolean = () => false): KeyLockGate {
  let opened = false;
  const parked = new Set<Parked>();
  // Requests queued in advance that `open` left to their grant, and who waits for them.
  const awaited = new Set<Parked>();
  const onGranted: (() => void)[] = [];
  const done = (p: Parked) => {
    if (!awaited.delete(p) || awaited.size > 0) return;
    for (const f of onGranted.splice(0)) f();
  };
  // A manager that throws at once refuses as one that rejects: never out of open or arm.
  const forward = (p: Parked) => requestLock(locks, p.name, p.options, p.callback).then(p.settle.resolve, p.settle.reject);
  const advance = (p: Parked) => {
    if (p.queued || p.options.ifAvailable || !queueAhead(p.name)) return;
    p.queued = true;
    let taken = false;
    requestLock(locks, p.name, p.options, (lock: unknown) => {
      p.queued = false;
      if (!opened) return undefined;
      taken = true;
      done(p);
      return p.callback(lock);
    }).then(
      (value) => (taken ? p.settle.resolve(value) : undefined),
      (error) => {
        p.queued = false;
        done(p);
        // Aborted while queued: before promotion the abort listener settled it already.
        if (taken || opened) p.settle.reject(error);
      },
    );
  };
  const gated: LockManagerLike = {
    request(name, options, callback) {
      if (opened || !name.startsWith(KEY_LOCK_PREFIX)) return locks.request(name, options, callback);
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(abortError(signal.reason));
      return new Promise((resolve, reject) => {
        const p: Parked = { name, options, callback, settle: { resolve, reject } };
        parked.add(p);
        signal?.addEventListener(
          "abort",
          () => {
            if (parked.delete(p)) reject(abortError(signal.reason));
          },
          { once: true },
        );
        advance(p);
      });
    },
    ...(locks.query ? { query: () => locks.query!() } : {}),
  };
  return {
    locks: gated,
    open() {
      if (opened) return;
      opened = true;
      const waiting = [...parked];
      parked.clear();
      // A request queued in advance runs the store's callback when its grant comes.
      for (const p of waiting) if (p.queued) awaited.add(p);
      for (const p of waiting) if (!p.queued) void forward(p);
    },
    granted() {
      return awaited.size === 0 ? Promise.resolve() : new Promise((resolve) => onGranted.push(resolve));
    },
    arm() {
      if (!opened) for (const p of parked) advance(p);
    },
    get parked() {
      return parked.size;
    },
  };
}
