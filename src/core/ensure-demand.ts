import type { ClaimEngine } from "./engine.ts";
import { joinedWhenAsked, meetsDemand, metWhenAsked } from "./freshness.ts";
import type { KeyState } from "./job.ts";
import { recordedRev } from "./snapshot.ts";
import type { Snapshot } from "./types.ts";
import { addWaiter, demandedRev, settled } from "./waiters.ts";

/**
 * What an `ensure` or `refetch` of the key waits for, from what is recorded and claimed now: the
 * snapshot at once when that answers it, or a waiter for the revision it demands.
 * `refetch`: wait for a revision newer than what is recorded now (joining one already claimed,
 * unless `skipInFlight`: then newer than that one too).
 * `maxAgeMs`: an ensure whose recorded outcome is older than that is treated like a refetch.
 * `askedAt`: when the app asked, if before this call (store-options.ts, ASKED_AT): judged as of then.
 */
export function ensureDemand(
  e: ClaimEngine,
  st: KeyState,
  signal: AbortSignal | undefined,
  mode: "ensure" | "refetch",
  maxAgeMs: number | undefined,
  skipInFlight: boolean,
  askedAt?: number,
): Promise<Snapshot> {
  // Heard late only when given: the clock's ms may tick while this runs (a busy machine).
  const late = askedAt !== undefined;
  askedAt ??= Date.now();
  const { result, error, claim } = e.reader.read(st);
  // Older outcomes above a claim made after them answer no one: the ask joins that claim, whose
  // result is recorded at their revision (a skipInFlight refetch wants one past it).
  const over = e.reader.over(st, true);
  const recorded = over ? 0 : recordedRev(result, error);
  // A freshness demand an older outcome cannot meet: wait for a newer revision, as a refetch does.
  const tooOld =
    recorded > 0 &&
    maxAgeMs !== undefined &&
    !meetsDemand(result, error, askedAt, maxAgeMs, e.opts.at) &&
    !(mode === "ensure" && joinedWhenAsked(result, error, askedAt, e.opts.at));
  const skip = mode === "refetch" && skipInFlight;
  const minRev = demandedRev(mode === "ensure" && !tooOld ? "ensure" : "refetch", recorded, over ?? claim?.rev, st.attempt?.rev, skip);
  // A refetch heard late (a SharedWorker's tab asked before its message came) is answered by an
  // outcome whose request was sent since the ask, or (not skipInFlight) was in flight then and
  // recorded since, as it would have joined that request had it been heard in time. Dates are in
  // whole ms: one of the ask's own ms may be the result the app refetches past, so only later count.
  if (minRev === 0 || (mode === "refetch" && late && metWhenAsked(result, error, askedAt + 1, 0, e.opts.at, !skip)))
    return Promise.resolve(settled(e.reader.compute(st)));
  // Still starting, nothing seen yet: a result persisted long ago may load before the store is
  // ready, and must not pass for fresh (a return visit revalidates what is stale), nor for the
  // newer revision a refetch asked for (one written since the ask is newer). Nor may a claim
  // not seen yet pass for the revision a skipInFlight refetch asked for.
  const demand = mode === "refetch" ? 0 : maxAgeMs;
  const judge = e.lifecycle === "starting" && ((demand !== undefined && recorded === 0) || skip);
  // Refreshed, not only decided: a waiter makes the key pending for its subscribers at once.
  return addWaiter(
    st,
    minRev,
    signal,
    () => (e.opts.changed?.(), e.refresh(st)),
    // A refetch, as one heard late: an outcome dated in the ask's own ms may be the one it refetches past.
    judge ? { askedAt: mode === "refetch" ? askedAt + 1 : askedAt, maxAgeMs: demand ?? 0, skip, joins: mode === "ensure" } : undefined,
  );
}
