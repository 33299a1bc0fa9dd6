import type { RecordMap } from "./record-map.ts";
import type { ErrorRecord, ResultRecord } from "./records.ts";

/**
 * Freshness rules, shared by every replica. A record's `at` is the *writer's* clock (ms since the
 * epoch, taken when the writing replica sent the request that got it, so the data was read from the
 * host no earlier than that); its age is judged against this replica's `Date.now()`, from an `at`
 * no later than when this replica first saw the record (trustedAt): a writer whose clock runs
 * ahead would date its results in our future, fresh here for as long as its clock is ahead. One
 * whose clock runs behind makes its results look older by the skew. That is the one place a
 * foreign timestamp meets our clock, and it only decides whether to fetch again, never whether
 * work is alive (invariant 3 stays clock-safe).
 */
/** An outcome's `at` as this replica trusts it (see trustedAt). */
export type TrustedAt = (record: { at?: number; done?: number }, field?: "at" | "done") => number | undefined;

/**
 * An outcome's `at`, no later than when this replica first saw the record, on its own clock (kept
 * in memory): `maps`' records as they arrive, and those the doc holds already when the store
 * starts (a reload's), so what was loaded still ages by its `at` unless that lies in the future.
 * Not at the first read: a page another device filled an hour ago, opened here, would read its
 * result as new. The epoch (invalidated) and no `at` stay as they are.
 */
export function trustedAt(maps: readonly RecordMap<{ at?: number }>[]): TrustedAt {
  const seen = new WeakMap<object, number>();
  const trust: TrustedAt = (record, field = "at") => {
    if (!seen.has(record)) seen.set(record, Date.now());
    return record[field] && Math.min(record[field], seen.get(record)!);
  };
  for (const map of maps) {
    for (const [, record] of map.entries()) trust(record);
    map.onChange((keys) => keys.forEach((key) => map.get(key) && trust(map.get(key)!)));
  }
  return trust;
}

/**
 * Revisions numbered apart (a device cut off from the sync server, a tab that fetched before its
 * IndexedDB loaded) merge by revision: the other side's higher one, older data, beat the result
 * this replica fetched since, and every replica showed it (until the next fetch). Written without
 * seeing ours, it did not delete it: the two contend until cleaned up. The newer data is recorded
 * again at the winner's revision, where the later request wins (doc-records.ts). So is an
 * invalidation made since the winner's request was sent: the winner is recorded invalidated.
 * The winner may be an error (that side's refetch failed): the same rules hold, and an error is
 * only ever marked, never recorded over a result (invariant 7).
 * Exactly one replica writes: the contender's writer, or, gone, the lowest id present (`present`,
 * which excludes this one; without presence only the writer).
 */
export function keepNewer(
  [results, programs]: RecordMap<ResultRecord>[],
  errors: RecordMap<ErrorRecord>,
  me: string,
  write: (fn: () => void) => void,
  present: () => ReadonlySet<string> | undefined,
): void {
  const writes = (by?: string) => {
    const ids = present();
    return by === me || (!!ids && !ids.has(by!) && [...ids].every((id) => me < id));
  };
  const check = (map: RecordMap<ResultRecord>, key: string) => {
    const result = map.get(key);
    const error = errors.get(key);
    const won = latestOutcome(result, error);
    const t = won?.at;
    let next: ResultRecord | ErrorRecord | undefined;
    let by: string | undefined;
    for (const r of t ? [...map.contenders(key), ...errors.contenders(key)] : []) {
      // By the dates as written (an invalidation's too), not as trusted here: the doc orders the
      // rewrite against the winner by them (doc-records.ts), and a replica that first saw the
      // winner before its writer's clock said it was written would decide alone.
      const newer = "data" in r && r.rev < won!.rev && r.at! > won!.at!;
      if (r !== won && (newer || (r.inv! > t! && !next))) {
        next = newer ? { ...r, rev: won!.rev } : { ...won!, at: 0, inv: r.inv! };
        by = r.by;
      }
    }
    if (!next) return;
    const into = ("data" in next ? map : errors) as RecordMap<typeof next>;
    // Read by every replica at once, in place of the winner (the writer's copy is a network hop away).
    into.over.delete(key);
    into.over.set(key, [into.get(key)!, next]);
    // Not inside the transaction that told us; a destroyed store's batch writes nothing. A result
    // removes an error at or below its revision, as its request's writeback does: left there, the
    // older error was listed beside it (devtools) until the next result.
    const drop = () => into !== errors && (errors.get(key)?.rev ?? Infinity) <= next.rev && errors.delete(key);
    if (writes(by)) queueMicrotask(() => into.get(key) === next && write(() => (into.set(key, next), drop())));
  };
  for (const map of [results!, programs!]) map.onChange((keys) => keys.forEach((key) => check(map, key)));
  errors.onChange((keys) => keys.forEach((key) => check(errors.get(key)?.kind === "program" ? programs! : results!, key)));
}

/**
 * The same merge met by a request still in flight: the other side's higher revision, or its own
 * of our revision (within one the later request wins), holds data read before ours was sent,
 * written without seeing our claim (it still stands). The request goes on; its result is recorded
 * at that revision (see writeOutcome's `over`). So too when that side's latest outcome is an
 * error (its refetch failed, cut off from us): sent before ours, it is no answer to it, and our
 * result replaces it. Not the outcome of our revision a takeover's claim met: the claimant it
 * replaced came home first (invariant 6). Returns the revision, if any.
 */
export function outran(
  result: ResultRecord | undefined,
  error: ErrorRecord | undefined,
  attempt: { rev: number; nonce: string; sentAt?: number | undefined },
  claim: { nonce: string; takeover?: true } | undefined,
): number | undefined {
  const above = [result, error].filter((r) => r && r.rev >= attempt.rev + (claim?.takeover ? 1 : 0)) as { rev: number; at?: number }[];
  // Their dates as written, as the claimant's own request weighs them and the doc orders its result
  // against theirs: a replica that saw theirs before their writer's clock said they were written
  // (that clock ahead) took them for older alone and waited on a claim every other replica let go.
  const older = above.length > 0 && claim?.nonce === attempt.nonce && above.every((r) => (r.at ?? 0) < (attempt.sentAt ?? 0));
  return older ? Math.max(...above.map((r) => r.rev)) : undefined;
}

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
export function meetsDemand(
  result: ResultRecord | undefined,
  error: ErrorRecord | undefined,
  now: number,
  maxAgeMs: number,
  at: TrustedAt,
): boolean {
  const latest = latestOutcome(result, error);
  return latest !== undefined && isFresh(at(latest), now, maxAgeMs);
}

/**
 * Whether the latest outcome met a demand for one at most `maxAgeMs` old made at `askedAt`: it was
 * written less than `maxAgeMs` before the ask (exactly that old is stale, as isFresh and TanStack's
 * isStaleByTime read it); with 0, written in the ask's ms or since (a refetch passes the ms after
 * its ask: one written in the ask's own ms may be the result it refetches past).
 * For a demand made before the replica could see what was recorded (its store still starting, or
 * an ask heard late). Its `at` as trusted: one from a device whose clock runs ahead, here before
 * the ask, is no answer to it. `joins` (not a skipInFlight refetch's): its request, in flight at
 * the ask, meets it too; else such an outcome that arrived since is none either, as when its
 * request was sent is unknown here (maybe before the ask: data read before a mutation).
 */
export function metWhenAsked(
  result: ResultRecord | undefined,
  error: ErrorRecord | undefined,
  askedAt: number,
  maxAgeMs: number,
  trust: TrustedAt,
  joins: boolean,
): boolean {
  const latest = latestOutcome(result, error);
  const at = latest && trust(latest);
  return (
    (at !== undefined && (maxAgeMs === 0 ? at >= askedAt : at > askedAt - maxAgeMs) && (joins || at === latest!.at)) ||
    (joins && joinedWhenAsked(result, error, askedAt, trust))
  );
}

/**
 * Whether an ensure made at `askedAt` joined the request of the latest outcome: written since the
 * ask (its `done`, no later than this replica first saw it, as `at` is trusted), however long
 * before the ask it was sent, as TanStack's mount joins a fetch in flight. Never an invalidated one.
 */
export function joinedWhenAsked(
  result: ResultRecord | undefined,
  error: ErrorRecord | undefined,
  askedAt: number,
  trust: TrustedAt,
): boolean {
  const latest = latestOutcome(result, error);
  return !!latest?.at && (trust(latest, "done") ?? 0) >= askedAt;
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

/**
 * With its `at` as this replica trusts it (trustedAt): TanStack's dataUpdatedAt agrees with the
 * store's freshness. `ahead`: dated in our future when it arrived, so when its request was sent is
 * unknown here, maybe before a set or an invalidation of the app's (react/push.ts).
 */
export function resultInfo(
  trusted: TrustedAt,
  result: { rev: number; at?: number } | undefined,
): { rev: number; at?: number; ahead?: true } | undefined {
  if (result?.at === undefined) return result && { rev: result.rev };
  const at = trusted(result)!;
  return at < result.at ? { rev: result.rev, at, ahead: true } : { rev: result.rev, at };
}
