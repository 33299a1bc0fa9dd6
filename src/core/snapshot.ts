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
  /** The revision whose older outcomes the request of our attempt or of the claim outran (freshness.ts). */
  over?: number | undefined;
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
 * A claim at or below the latest result is finished work, not pending; a live one above it, below
 * or at a newer error, still works: a claimant deletes its claim as it records, so that error is a
 * partition's duplicate's or a newer request's, and the claimant's result is kept beside it
 * (invariant 7), as TanStack shows a fetch in flight after an error. So is our own request there.
 * A request that outran the older result of the revision its own is recorded at works above it.
 */
/**
 * The revision whose work is done: the latest result's, less one when a request that outran it
 * (`over`, freshness.ts) is recorded at that revision and still works above it.
 */
export function doneRev(result: ResultRecord | undefined, over: number | undefined): number {
  const rev = result?.rev ?? 0;
  return rev - +(over === rev);
}

export function deriveSnapshot(input: SnapshotInputs): Snapshot {
  const { result, error, claim, localRev, replicaId } = input;
  const recorded = recordedRev(result, error);
  const resultRev = result?.rev ?? 0;
  const latestIsError = error !== undefined && error.rev > resultRev;
  const done = doneRev(result, input.over);
  let view: ClaimView | undefined;
  if (claim && claim.rev > done) {
    const mine = input.isMine ? input.isMine(claim) : claim.replicaId === replicaId;
    const stale = !mine && input.isStale(claim);
    if (claim.rev > recorded || !(mine || stale)) view = { replicaId: claim.replicaId, mine, stale };
    if (view && claim.failed) view.failed = claim.failed;
  }
  if (!view && (localRev ?? 0) > done) view = { replicaId, mine: true, stale: false };
  const wanted = (input.wantedRev ?? 0) > recorded;
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
    sameClaim(a.claim, b.claim)
  );
}

/** Claim views alike in all they show; `failed` is the claim record's own, new with each failure it counts. */
export function sameClaim(a: ClaimView | undefined, b: ClaimView | undefined): boolean {
  return a?.replicaId === b?.replicaId && a?.mine === b?.mine && a?.stale === b?.stale && a?.failed === b?.failed;
}

export const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;
