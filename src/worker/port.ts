import { requestLock, type LockManagerLike } from "../core/locks.ts";
import type { WorkerMessage } from "./protocol.ts";

/** The part of a MessagePort both sides use (browser MessagePort, Node's global MessageChannel ports). */
export type PortLike = {
  postMessage(message: unknown): void;
  addEventListener(type: "message" | "messageerror", listener: (event: MessageEvent) => void): void;
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
 * `onRefused`: Web Locks refused the watch (not withdrawn by stop): no death will be heard.
 */
export function watchLock(locks: LockManagerLike, name: string, onGone: () => void, onRefused?: (error: unknown) => void): () => void {
  const controller = new AbortController();
  requestLock(locks, name, { mode: "shared", signal: controller.signal }, () => {
    if (!controller.signal.aborted) onGone();
  }).catch((error: unknown) => controller.signal.aborted || onRefused?.(error));
  return () => controller.abort();
}

/** Posts to a tab's port; false if the message could not be posted (a value that cannot be cloned). */
export function postToTab(port: PortLike, message: WorkerMessage): boolean {
  try {
    port.postMessage(message);
    return true;
  } catch (error) {
    // A value that cannot be cloned must not take the worker down for the other tabs.
    if (message.t !== "batch") console.warn("shared-fetch worker: could not post to a tab", error);
    return false;
  }
}
