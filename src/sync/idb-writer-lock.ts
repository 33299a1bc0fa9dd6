import { requestLock } from "../core/locks.ts";
/** The Web Lock one tab of the browser holds while it stores the doc of `<prefix><name>`. */
export const WRITER_LOCK_PREFIX = "shared-fetch:idb:";

/** What persistDoc asks of Web Locks (a page's navigator.locks). */
export type WriterLocks = {
  request(name: string, options: { mode: "exclusive"; signal: AbortSignal }, callback: () => Promise<unknown>): Promise<unknown>;
};

/**
 * The writer lock of the doc `name`, asked for by `take` and let go of by `release`: `granted`
 * runs once it is held, or at once where Web Locks are refused (an opaque origin: the tab stores,
 * as without them). Let go of before the grant, the request is withdrawn: left in the queue, it
 * was granted to a page frozen in the back/forward cache (or to a destroyed doc's page gone
 * there), whose callback runs only when it is shown again, and every tab behind it stored nothing
 * meanwhile.
 */
export function writerLock(locks: WriterLocks, name: string, granted: () => void): { take(): void; release(): void } {
  let holding: (() => void) | undefined; // lets go of the lock, or withdraws the request for it
  return {
    take() {
      if (holding) return;
      const ask = new AbortController();
      const mine = (holding = () => ask.abort());
      requestLock(
        locks,
        WRITER_LOCK_PREFIX + name,
        { mode: "exclusive", signal: ask.signal },
        async () =>
          // Held until let go of (an abort after the grant withdraws nothing); granted after it
          // was let go of (locks that ignore the signal), let go of at once.
          holding === mine && (granted(), new Promise((resolve) => (ask.signal.onabort = resolve))),
      ).catch(() => holding === mine && granted());
    },
    release() {
      holding?.();
      holding = undefined;
    },
  };
}
