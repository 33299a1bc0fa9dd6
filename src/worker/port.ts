import type { LockManagerLike } from "../core/locks.ts";

/** The part of a MessagePort both sides use (browser MessagePort, Node's global MessageChannel ports). */
export type PortLike = {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  start?(): void;
  close(): void;
};

export type { LockManagerLike };

/**
 * Holds `name` until the returned release is called; resolves once the lock is granted. A lock
 * the browser releases on death is how each side of the port learns the other died: a
 * MessagePort has no close event.
 */
export function holdLock(locks: LockManagerLike, name: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    locks.request(name, { mode: "exclusive" }, () => new Promise<void>((release) => resolve(release))).catch(reject);
  });
}

/**
 * Calls `onGone` once the holder of `name` is gone (its lock granted to us); stop() withdraws.
 * Shared mode: every watcher is woken by the one release at once, not one after another.
 */
export function watchLock(locks: LockManagerLike, name: string, onGone: () => void): () => void {
  const controller = new AbortController();
  locks
    .request(name, { mode: "shared", signal: controller.signal }, () => {
      if (!controller.signal.aborted) onGone();
    })
    .catch(() => {});
  return () => controller.abort();
}
