import { unrefTimer } from "./unref-timer.ts";

/**
 * The settle window counts time in which this replica could have heard a rival claim. A timer that
 * fires late says the event loop was busy — under load, often with the very updates that carry
 * the rival's claim, still queued behind it. So the window ends only on a check that fires on
 * time: each late one is followed by a zero-delay check queued behind whatever arrived meanwhile.
 * A hidden page is exempt (its timers are throttled to a second or more: late by policy, not by
 * work), and the extension is bounded.
 */
export const SETTLE_LAG_MS = 25;
/** However busy the loop, a claim is dispatched this long after its first late check at the latest. */
export const MAX_SETTLE_EXTENSION_MS = 30_000;

export type SettleTimer = { cancel(): void };

/**
 * `unref`: the timer does not keep a Node process alive (a bound on something else's answer, such
 * as a fence's: see trip-probe).
 */
export function startSettleTimer(ms: number, done: () => void, now: () => number = Date.now, opts: { unref?: boolean } = {}): SettleTimer {
  // From the first late check: a loop blocked longer than the bound still hears what queued meanwhile.
  let deadline: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (delay: number) => {
    const due = now() + delay;
    timer = setTimeout(() => {
      const at = now();
      const late = at - due > SETTLE_LAG_MS;
      if (late) deadline ??= at + MAX_SETTLE_EXTENSION_MS;
      if (late && at < deadline! && !pageHidden()) return arm(0);
      timer = undefined;
      done();
    }, delay);
    if (opts.unref) unrefTimer(timer);
  };
  arm(ms);
  return {
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

function pageHidden(): boolean {
  return typeof document !== "undefined" && document.visibilityState === "hidden";
}
