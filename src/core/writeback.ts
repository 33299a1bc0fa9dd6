import type { DocRecords } from "./doc-records.ts";
import type { Outcome } from "./fetcher.ts";
import type { RecordMap } from "./lanes.ts";
import type { ErrorRecord, ResultRecord } from "./records.ts";

/**
 * Records one attempt's outcome. Gated on key and revision, never on the claim (invariant 6):
 * after a takeover either copy may write, the first one home counts and the second is dropped.
 * Results and errors are separate records (invariant 7): an error is written only when nothing at
 * its revision or later is recorded, so it can never hide a result; a result replaces an older
 * or equal-revision error. Returns whether anything was written.
 *
 * Write only what everyone can read: each record is checked with the very validator readers use
 * (the table's). A result no replica could read back (too deep, a non-finite number, …) is
 * recorded as an error saying so, which ends the work at this revision; an unreadable result never
 * replaces a good one, and the record is never left for every replica to fetch again and again.
 */
export function writeOutcome(
  records: DocRecords,
  results: RecordMap<ResultRecord>,
  attempt: {
    key: string;
    rev: number;
    label: string;
    kind?: "fetch" | "program";
    outcome: Outcome;
    by?: string;
    over?: number | undefined;
  },
): boolean {
  const { key, label, kind, by } = attempt;
  const { at: t, inv } = attempt.outcome;
  // `done`: an ask made while the request ran joined it (freshness.ts, joinedWhenAsked).
  const at = t === undefined ? {} : inv === undefined ? { at: t, done: Date.now() } : { at: t, done: Date.now(), inv };
  const writer = by === undefined ? {} : { by };
  const { errors } = records;
  const result = results.get(key);
  const error = errors.get(key);
  let outcome = attempt.outcome;
  // `over`: the recorded revision holds older outcomes than this result (freshness.ts, outran).
  const over = outcome.ok && attempt.over !== undefined && attempt.over === Math.max(result?.rev ?? 0, error?.rev ?? 0);
  const rev = over ? attempt.over! : attempt.rev;
  if (outcome.ok) {
    if (result && result.rev >= rev && !over) return false;
    const record: ResultRecord = { rev, data: outcome.data, label, ...at, ...writer };
    const problem = results.validate(record);
    if (typeof problem !== "string") {
      results.set(key, record);
      if (error && error.rev <= rev) errors.delete(key);
      return true;
    }
    outcome = { ok: false, error: { message: `result cannot be shared: ${problem.replace(/^result\.data /, "its data ")} (${label})` } };
  }
  if ((result?.rev ?? 0) >= rev || (error?.rev ?? 0) >= rev) return false;
  const { message, status } = outcome.error;
  // Named as the result would be (the job's label, secret-free): a key whose only outcome is an
  // error is still named once its claim is gone, for a replica that never asked for it.
  const record: ErrorRecord = {
    rev,
    message,
    ...(status === undefined ? {} : { status }),
    ...at,
    ...writer,
    label,
    ...(kind ? { kind } : {}),
  };
  // An error record nobody could read (e.g. a revision out of bounds) is not written at all.
  if (typeof errors.validate(record) === "string") return false;
  errors.set(key, record);
  return true;
}
