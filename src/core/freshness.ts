import type { ErrorRecord, ResultRecord } from "./records.ts";

/**
 * Freshness rules, shared by every replica. A record's `at` is the *writer's* clock (ms since the
 * epoch, taken when the writing replica sent the request that got it, so the data was read from the
 * host no earlier than that); its age is judged against this replica's `Date.now()`. Clock skew between
 * devices shifts ages by the skew: a writer whose clock runs 2 s fast makes its results look 2 s
 * younger elsewhere. That is the one place a foreign timestamp meets our clock, and it only
 * decides whether to fetch again, never whether work is alive (invariant 3 stays clock-safe).
 */

/** A record without `at` (written before ages were recorded) is of unknown age: never fresh. */
export function isFresh(at: number | undefined, now: number, maxAgeMs: number): boolean {
  if (at === undefined) return false;
  if (maxAgeMs === Infinity) return true;
  return now - at < maxAgeMs;
}

/**
 * Whether what is recorded meets a demand for an outcome at most `maxAgeMs` old: the latest
 * outcome (a result, or an error newer than every result) must be within the window.
 */
export function meetsDemand(result: ResultRecord | undefined, error: ErrorRecord | undefined, now: number, maxAgeMs: number): boolean {
  const latest = latestOutcome(result, error);
  return latest !== undefined && isFresh(latest.at, now, maxAgeMs);
}

/**
 * Whether the latest outcome met a demand for one at most `maxAgeMs` old made at `askedAt`: it was
 * written no earlier than that window before the ask (so one written since the ask always does).
 * For a demand made before the replica could see what was recorded (its store still starting).
 */
export function metWhenAsked(result: ResultRecord | undefined, error: ErrorRecord | undefined, askedAt: number, maxAgeMs: number): boolean {
  const at = latestOutcome(result, error)?.at;
  return at !== undefined && (maxAgeMs === Infinity || at >= askedAt - maxAgeMs);
}

/**
 * The latest outcome is dated at the epoch, a date no writer records: the devtools' invalidate
 * marked it stale for every replica (devtools/invalidate.ts). Every ensureProgram reads it.
 */
export function invalidated(result: ResultRecord | undefined, error: ErrorRecord | undefined): boolean {
  return latestOutcome(result, error)?.at === 0;
}

function latestOutcome(result: ResultRecord | undefined, error: ErrorRecord | undefined): ResultRecord | ErrorRecord | undefined {
  return error && error.rev > (result?.rev ?? 0) ? error : result;
}

/**
 * The window a poll (refetchInterval) accepts. A claimant's own next tick fires one interval
 * after the tick that made its result, so the window stops a little short of the interval: that
 * tick refetches rather than racing the boundary on timer and clock rounding (then one request
 * per interval, from one steady tab, instead of a phase that drifts from tab to tab).
 */
export function pollWindow(intervalMs: number): number {
  return Math.max(0, intervalMs - Math.min(intervalMs / 20, 25));
}
