import { abortError } from "../core/errors.ts";
import type { LockManagerLike } from "./port.ts";

/** Key locks are named with this prefix (ReplicaLocks.holdKey). */
const KEY_LOCK_PREFIX = "shared-fetch:key:";

type Parked = { name: string; options: Parameters<LockManagerLike["request"]>[1]; callback: (lock: unknown) => unknown; settle: Settle };
type Settle = { resolve: (value: unknown) => void; reject: (error: unknown) => void };

/**
 * The Web Locks a standby worker's store sees: every lock as the browser grants it, except the
 * keys' locks, which are held back until `open()` (the standby's promotion). Without a key's lock
 * no store writes a claim, so the standby can wait on what its tabs ask for in advance — its
 * engine queues for the live worker's replica lock and decides as any store does — yet never
 * claims or sends a request while the live worker lives (one request per key). At promotion the
 * held-back requests go to the browser in the order they were made.
 */
export function keyLockGate(locks: LockManagerLike): { locks: LockManagerLike; open(): void; readonly parked: number } {
  let opened = false;
  const parked = new Set<Parked>();
  const forward = (p: Parked) => locks.request(p.name, p.options, p.callback).then(p.settle.resolve, p.settle.reject);
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
      for (const p of waiting) void forward(p);
    },
    get parked() {
      return parked.size;
    },
  };
}
