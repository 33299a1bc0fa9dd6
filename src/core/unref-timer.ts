/** A timer that must not keep a Node process alive (browsers have no `unref`: a no-op there). */
export function unrefTimer<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
