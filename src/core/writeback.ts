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
 */
export function writeOutcome(
  records: DocRecords,
  results: RecordMap<ResultRecord>,
  attempt: { key: string; rev: number; label: string; outcome: Outcome; by?: string },
): boolean {
  const { key, rev, label, outcome, by } = attempt;
  const { errors } = records;
  const result = results.get(key);
  const error = errors.get(key);
  if (outcome.ok) {
    if (result && result.rev >= rev) return false;
    results.set(key, by === undefined ? { rev, data: outcome.data, label } : { rev, data: outcome.data, label, by });
    if (error && error.rev <= rev) errors.delete(key);
    return true;
  }
  if ((result?.rev ?? 0) >= rev || (error?.rev ?? 0) >= rev) return false;
  const { message, status } = outcome.error;
  const record: ErrorRecord = status === undefined ? { rev, message } : { rev, message, status };
  if (by !== undefined) record.by = by;
  errors.set(key, record);
  return true;
}
