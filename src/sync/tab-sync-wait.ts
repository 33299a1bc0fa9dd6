import { REPLICA_LOCK_PREFIX } from "../core/locks.ts";
import { startSettleTimer } from "../core/settle-timer.ts";
import { TAB_LOCK_PREFIX, tabNonce } from "./tab-flush.ts";
import type { PageLocks } from "./tabs-options.ts";

/** How long a new tab waits for the open tabs' answer before it decides on what it has. */
export const TAB_SYNC_WAIT_MS = 250;

/**
 * The bound counts time in which an answer could have been heard: a timer that fires late says the
 * loop was busy (a booting tab on a loaded machine), often with the answer queued behind it, and
 * deciding then sent a request the other tab had made. As the settle window, it ends only on a
 * check that fires on time.
 */
export function onTime(ms: number): Promise<void> {
  return new Promise((resolve) => startSettleTimer(ms, resolve));
}

/**
 * Resolves at once when Web Locks show no other tab that could answer on this channel (a lone tab
 * pays no wait); never resolves when one could (its answer, or the timeout, decides). Every tab of
 * the name holds its tab lock; a replica lock where no tab lock is held at all may be a tab of a
 * version before tab locks. Other names' tabs and their stores (another doc of the page, another
 * app of the origin) never answer here: waiting for them cost a lone tab the whole timeout.
 */
export function noOtherTabs(locks: PageLocks | undefined, name: string, own: string): Promise<void> {
  const never = new Promise<void>(() => {});
  if (typeof locks?.query !== "function") return never;
  return locks.query().then(
    (state) => {
      // Its own tab lock, held by now, is not another's: an older version's tab is still waited for.
      const names = (state.held ?? []).map((lock) => lock.name ?? "").filter((n) => tabNonce(n, name) !== own);
      const tabs = names.some((n) => n.startsWith(TAB_LOCK_PREFIX));
      const peer = (n: string) => tabNonce(n, name) !== undefined || (!tabs && n.startsWith(REPLICA_LOCK_PREFIX));
      return names.some(peer) ? never : undefined;
    },
    () => never,
  );
}
