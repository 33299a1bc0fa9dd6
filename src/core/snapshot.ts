import type { ClaimRecord, ErrorRecord, ResultRecord } from "./records.ts";
import type { ClaimView, Snapshot } from "./types.ts";

export type SnapshotInputs = {
  result: ResultRecord | undefined;
  error: ErrorRecord | undefined;
  claim: ClaimRecord | undefined;
  /** Revision of a request in flight in this replica, if any. */
  localRev: number | undefined;
  /** The highest revision a caller of this replica waits for, if any. */
  wantedRev?: number | undefined;
  replicaId: string;
  /** Whether a claim is this replica's own (it names our id *and* a nonce we issued). */
  isMine?: (claim: ClaimRecord) => boolean;
  isStale: (claim: ClaimRecord) => boolean;
};

export function recordedRev(result: ResultRecord | undefined, error: ErrorRecord | undefined): number {
  return Math.max(result?.rev ?? 0, error?.rev ?? 0);
}

/**
 * Invariant 8: pending while a claim on unrecorded work stands, a local request runs (a stale
 * claim too: nobody has finished that work) or a caller here waits for unrecorded work; idle only
 * when nothing is claimed, asked for or recorded.
 * A claim at or below the recorded revision is finished work, not pending.
 */
export function deriveSnapshot(input: SnapshotInputs): Snapshot {
  const { result, error, claim, localRev, replicaId } = input;
  const recorded = recordedRev(result, error);
  let view: ClaimView | undefined;
  if (claim && claim.rev > recorded) {
    const mine = input.isMine ? input.isMine(claim) : claim.replicaId === replicaId;
    view = { replicaId: claim.replicaId, mine, stale: mine ? false : input.isStale(claim) };
    if (claim.failed) view.failed = claim.failed;
  } else if (localRev !== undefined && localRev >= recorded && localRev > (result?.rev ?? 0)) {
    // At the recorded revision too when what is recorded there is an error (a partition's
    // duplicate that failed first): it does not end our request, whose result replaces it.
    view = { replicaId, mine: true, stale: false };
  }
  const latestIsError = error !== undefined && error.rev > (result?.rev ?? 0);
  const wanted = input.wantedRev !== undefined && input.wantedRev > recorded;
  const status = view || wanted ? "pending" : recorded > 0 ? (latestIsError ? "error" : "success") : "idle";
  const snapshot: Snapshot = { status };
  if (result) snapshot.data = result.data;
  if (latestIsError)
    snapshot.error = error.status === undefined ? { message: error.message } : { message: error.message, status: error.status };
  if (view) snapshot.claim = view;
  return snapshot;
}

/** Snapshots keep their identity until their content changes (no extra renders). */
export function sameSnapshot(a: Snapshot | undefined, b: Snapshot): boolean {
  if (!a) return false;
  return (
    a.status === b.status &&
    a.data === b.data &&
    a.error?.message === b.error?.message &&
    a.error?.status === b.error?.status &&
    a.claim?.replicaId === b.claim?.replicaId &&
    a.claim?.mine === b.claim?.mine &&
    a.claim?.stale === b.claim?.stale &&
    a.claim?.failed === b.claim?.failed
  );
}

export const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;
