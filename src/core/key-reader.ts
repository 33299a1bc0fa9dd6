import type { KeyView, Lifecycle } from "./decide.ts";
import type { DocRecords } from "./doc-records.ts";
import type { KeyState } from "./job.ts";
import type { Verdict } from "./liveness.ts";
import type { ClaimRecord } from "./records.ts";
import { deriveSnapshot, recordedRev, sameSnapshot } from "./snapshot.ts";
import type { Snapshot } from "./types.ts";
import { MAX_REV } from "./records.ts";
import { outran, type TrustedAt } from "./freshness.ts";

export type KeyReaderDeps = {
  records: DocRecords;
  replicaId: string;
  lifecycle: () => Lifecycle;
  verdict: (key: string, claim: ClaimRecord, now: number) => Verdict;
  at: TrustedAt;
  awaited?: ((key: string, rev: number, sent: boolean) => boolean) | undefined;
};

/** The highest revision a waiter of this replica wants, if any (beyond MAX_REV nobody can claim it). */
export function wantedRev(st: KeyState): number | undefined {
  let rev: number | undefined;
  for (const w of st.waiters) if (w.minRev <= MAX_REV && (rev === undefined || w.minRev > rev)) rev = w.minRev;
  return rev;
}

/** Turns the doc, this replica's state for a key and the liveness verdicts into a snapshot and a view for decide. */
export class KeyReader {
  constructor(private readonly deps: KeyReaderDeps) {}

  /**
   * Yjs applies a delete set even when the insert that justified it is still pending (its writer's
   * earlier updates have not arrived yet), so a replaced result can be seen deleted before its
   * replacement arrives. A result once seen therefore bridges a *missing* record while this
   * replica holds the key: data shown once never flips back to none (invariants 7, 8).
   */
  read(st: KeyState) {
    const { claims, errors } = this.deps.records;
    const claim = claims.get(st.key);
    const inDoc = st.results.get(st.key);
    if (inDoc) st.seen = inDoc;
    // The record is gone, yet the key is claimed below what we remember: it was removed on
    // purpose (retention, eviction) and work restarted, so the memory no longer stands.
    else if (st.seen && claim && claim.rev < st.seen.rev) st.seen = undefined;
    return { result: st.seen, error: errors.get(st.key), claim };
  }

  compute(st: KeyState): Snapshot {
    const { result, error, claim: read } = this.read(st);
    // A destroyed store hears of no claim any more: the last one it saw would stand for ever.
    const gone = this.deps.lifecycle() === "destroyed";
    const claim = gone ? undefined : read;
    const now = Date.now();
    const over = gone ? undefined : this.over(st, true);
    const next = deriveSnapshot({
      result,
      error,
      claim: claim && { ...claim, rev: this.claimRev(st, claim) },
      // At the revision its outcome will be recorded at: above older outcomes it outran (over).
      localRev: gone || !st.attempt ? undefined : Math.max(st.attempt.rev, over ?? 0),
      // Every replica's, not only those that wait: a pane in sync with the claimant shows it too.
      over,
      // Asked for and not yet claimed by anyone (the store is starting): work is due here, so
      // the key is pending, never "idle" (invariant 8) — with no claimant named, as none exists.
      wantedRev: gone ? undefined : wantedRev(st),
      replicaId: this.deps.replicaId,
      isMine: (c) => this.isMine(st, c),
      isStale: (c) => this.deps.verdict(st.key, c, now).stale,
    });
    if (!sameSnapshot(st.snapshot, next)) st.snapshot = next;
    return st.snapshot as Snapshot;
  }

  /** A claim under our id is ours only if we made it: a forged nonce is disowned (issue: forged claims). */
  isMine(st: KeyState, claim: ClaimRecord): boolean {
    return claim.replicaId === this.deps.replicaId && (st.attempt?.nonce === claim.nonce || st.nonces.includes(claim.nonce));
  }

  /**
   * The recorded revision our running request's result is to be recorded at (freshness.ts,
   * outran). Before it runs, and for the foreign claim our waiters joined (or take over), the
   * claim's time stands for the send (no later), as trusted here (no later than when this replica
   * first saw it: a claimant whose clock runs ahead would make older anything read since): the
   * claimant's result will be recorded there, and nobody here takes the older outcomes for its answer.
   * Never later than the claimant's own send, against the same dates as written: what a joiner
   * takes for older, the claimant does too, so no joiner waits on a claim its claimant let go.
   */
  over(st: KeyState, asking?: boolean): number | undefined {
    const { result, error, claim } = this.read(st);
    const a = st.attempt;
    if (a?.phase === "running") return outran(result, error, a, claim);
    if (claim && (a?.phase || st.waiters.size || asking) && (claim.nonce === a?.nonce || !this.isMine(st, claim)))
      return outran(result, error, { ...claim, sentAt: this.deps.at(claim) }, claim);
  }

  /**
   * A foreign claim's revision as its outcome will be recorded at: over the older outcomes its
   * request outran (as our own request's, over), so that every replica, not only the claimant and
   * those that wait on it, counts it as work still running (invariant 8).
   */
  claimRev(st: KeyState, claim: ClaimRecord): number {
    const { result, error } = this.read(st);
    return this.isMine(st, claim)
      ? claim.rev
      : Math.max(claim.rev, outran(result, error, { ...claim, sentAt: this.deps.at(claim) }, claim) ?? 0);
  }

  view(st: KeyState): KeyView {
    const { error: recorded, claim } = this.read(st);
    // Older outcomes than our request's: not what its waiters wait for, nor what supersedes it.
    const overRev = this.over(st);
    const over = overRev !== undefined;
    const result = over ? undefined : st.seen;
    const error = over ? undefined : recorded;
    const waiters = [...st.waiters].map((w) => w.minRev);
    // What the waiters here joined, while they wait (see AttemptDeps.joined).
    st.joined = waiters.length ? (claim ?? st.joined) : undefined;
    const view: KeyView = {
      lifecycle: this.deps.lifecycle(),
      recorded: recordedRev(result, error),
      resultRev: result?.rev ?? 0,
      settled: st.settled,
      waiters,
      listeners: st.listeners.size,
      crashed: this.deps.records.lanes.frozen,
    };
    if (claim) {
      const mine = this.isMine(st, claim);
      const verdict = mine ? { stale: false, staleAt: Infinity } : this.deps.verdict(st.key, claim, Date.now());
      // A pane that only shows the key waits on a claim that outran the latest error as on one at
      // its revision (decide): pending until the claimant goes silent.
      const rev = over || waiters.length || st.attempt ? claim.rev : this.claimRev(st, claim);
      // Lifted onto an older result of its revision, or outrunning one of its own, it works above
      // it: waited on until silent.
      if (rev === view.resultRev && this.over(st, true)) view.resultRev--;
      view.claim = { replicaId: claim.replicaId, nonce: claim.nonce, rev, mine, stale: verdict.stale, staleAt: verdict.staleAt };
      if (claim.eager) view.claim.eager = true;
      if (this.deps.records.claims.held(st.key)) view.claim.held = true;
    }
    const a = st.attempt;
    const phase = a?.phase;
    if (a && phase) {
      view.attempt = { rev: a.rev, nonce: a.nonce, phase, forListeners: a.forListeners };
      if (over) view.attempt.over = overRev;
      const order = a.order;
      if (order?.order) view.attempt.order = order.order;
      if (order?.ahead !== undefined) view.attempt.ahead = order.ahead;
      if (a.reasserted) view.attempt.reasserted = true;
      // Asked only once nothing here waits: the lone replica's requests pay nothing for it.
      // Waits name a revision, not a claimant: another's claim of it standing (a duplicate sent
      // during a partition, ours lost in the doc), the replicas that wait on it wait on that one.
      // Not while the server ordered ours first: ours is written again to stand (decide's reassert).
      const ours = !claim || claim.nonce === a.nonce || order?.order === "first";
      if (!waiters.length && ours && this.deps.awaited?.(st.key, a.rev, phase === "running")) view.awaited = true;
    }
    return view;
  }
}
