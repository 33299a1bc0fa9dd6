import { AttemptClaim } from "./attempt-claim.ts";
import type { StopReason } from "./attempt-deps.ts";
import { abortError, isAbortError } from "./errors.ts";
import type { Outcome, OutcomeError } from "./fetcher.ts";
import { networkCause } from "./causes.ts";
import { inNextPageTask } from "./page-lifecycle.ts";
import { writeOutcome } from "./writeback.ts";
import { invalidated } from "./freshness.ts";

/**
 * One claim, owned from the settle window to its release (node-redlock's shape): the claim record,
 * its abort controller, the settle timer, the heartbeat registration, the writeback and the release.
 * The claim's half up to `settled` (key lock, record, fence, window) is AttemptClaim's; the request
 * from its dispatch on is here.
 */
export class Attempt extends AttemptClaim {
  private readonly controller = new AbortController();
  /** When the request was sent (this replica's clock). */
  sentAt: number | undefined;
  /** Whether the recorded outcome was invalidated (dated at the epoch) when the request was sent. */
  private sentInvalidated = false;

  /** Our claim was written again while the request runs (see `reassert`). */
  reasserted = false;

  /**
   * First at the server, yet another claim of our revision stands in the doc (a rival's, written
   * before it learnt it came second), or no claim stands while our request runs (a rival's
   * released, e.g. a takeover made across a partition), or ours stands only while Yjs holds back
   * the takeover that deleted it: ours, again, marked as dispatched, so that it outranks theirs and
   * nobody sees the key idle. Once: two claims dispatched by mistake stop there.
   */
  reassert(): void {
    const { record, deps, job } = this;
    if (this.reasserted || !record) return;
    this.reasserted = true;
    this.record = { ...record, eager: true };
    deps.write(() => deps.records.claims.set(job.key, this.record!));
  }

  /** Another claim won the race for this revision. Ours was overwritten (or, ordered behind, replaced by the first one): nothing to release. */
  yieldTo(replicaId: string): void {
    if (this.state.phase === "settling") this.state.timer?.cancel();
    this.fence?.unwatch?.();
    this.state = { phase: "stopped", reason: "superseded" };
    this.deps.heartbeat.remove(this);
    this.controller.abort(abortError("shared-fetch: yielded"));
    this.unlock();
    this.deps.emit({ type: "yielded", kind: this.job.kind, key: this.job.key, rev: this.rev, to: replicaId });
  }

  dispatch(): void {
    const { job, rev, deps } = this;
    this.state = { phase: "running" };
    this.sentAt = Date.now();
    this.sentInvalidated = this.invalidated();
    deps.emit({ type: "dispatched", kind: job.kind, key: job.key, label: job.label, rev });
    const signal = this.controller.signal;
    let run: Promise<Outcome>;
    try {
      run = job.run({
        signal,
        rev,
        idempotencyKey: `${job.key}.${rev}.${this.record?.ik ?? this.nonce}`,
        failed: (n, e) => this.failed(n, e),
      });
    } catch (error) {
      run = Promise.reject(error);
    }
    // A failure with no HTTP status may be this page's own unload (see inNextPageTask).
    const judged = (outcome: Outcome): void =>
      outcome.ok || outcome.error.status !== undefined ? this.finish(outcome) : inNextPageTask(() => this.finish(outcome));
    run.then(judged, (error: unknown) =>
      isAbortError(error) || signal.aborted
        ? this.finish(null)
        : // Never a dependency's error text in the doc: it may quote a URL or a header (invariant 13).
          judged({ ok: false, error: { message: `${job.label}: ${networkCause(error)}` } }),
    );
  }

  /**
   * A failure the claim retries, told in our claim while it stands (never in another's: a
   * takeover's count starts anew). A rewrite of the claim, once per failure: in a partition one
   * may race a takeover and win (clientID); both requests still run and write back by revision
   * (invariant 6), and the losing claimant's later failures are not told (the claim is not its own).
   * Rewritten from the claim as it stands, not as we wrote it: the browser id agreed since (store.ts) stays.
   */
  private failed(n: number, failure: OutcomeError): void {
    const { job, deps } = this;
    const claim = deps.records.claims.get(job.key);
    if (this.state.phase !== "running" || claim?.nonce !== this.nonce) return;
    this.record = { ...claim, failed: { ...failure, n } };
    deps.write(() => deps.records.claims.set(job.key, this.record!));
  }

  /**
   * Aborts the request and releases the claim; a page going away marks it abandoned instead. One
   * replaced by a newer request (`refetched`) keeps both its claim and its key lock for the newer
   * claim (see handOver): through "no claim" (invariant 4), another tab would send it again.
   */
  stop(reason: StopReason): void {
    const { state, job, deps } = this;
    if (state.phase === "done" || state.phase === "stopped") return;
    if (state.phase === "settling") state.timer?.cancel();
    this.fence?.unwatch?.();
    this.state = { phase: "stopped", reason };
    this.controller.abort(abortError(`shared-fetch: aborted (${reason})`));
    deps.heartbeat.remove(this);
    deps.emit({ type: "aborted", kind: job.kind, key: job.key, rev: this.rev, reason });
    if (reason !== "refetched") this.letGo(reason);
  }

  /** Lets the key lock and the claim go (for a replaced attempt: no newer claim followed it). */
  letGo(reason?: StopReason): void {
    const { job, deps } = this;
    this.unlock();
    const claim = deps.records.claims.get(job.key);
    // The claim of the attempts it replaces, not rewritten yet, goes with it: never left for nobody.
    if (!claim || claim.replicaId !== deps.replicaId || !this.standsFor(claim.nonce)) return;
    // Nobody here wants the work any more: hand it back (idle is the truth). A page going away
    // still leaves work others want: mark its claim abandoned, so whoever shows the key takes it
    // over at once by rewriting it — never through "no claim" (invariant 4).
    if (reason === "hidden") deps.write(() => deps.records.claims.set(job.key, { ...claim, abandoned: true }));
    else deps.write(() => deps.records.claims.delete(job.key));
    deps.emit({ type: "released", kind: job.kind, key: job.key, rev: this.rev });
  }

  /** Whether the claim with this nonce is ours, or one of the chain of requests ours replaced before it was written. */
  private standsFor(nonce: string): boolean {
    return nonce === this.nonce || !!this.deps.replaces?.standsFor(nonce);
  }

  private invalidated(): boolean {
    const { job, deps } = this;
    return invalidated(job.results.get(job.key), deps.records.errors.get(job.key));
  }

  /** Writebacks are gated on key and revision, never on the claim (invariants 6 and 7). */
  private finish(outcome: Outcome | null): void {
    const { job, rev, deps } = this;
    deps.heartbeat.remove(this);
    // An aborted request writes nothing; its claim was released when it was stopped.
    if (this.state.phase !== "running" || outcome === null) return;
    let written = false;
    const over = deps.over?.();
    // Invalidated for every replica while it ran (the devtools' invalidate): read before that, its
    // outcome is recorded as stale, or it would undo the invalidation for every replica.
    // With the invalidation's time: a partition's other side may bring a result sent before it (keepNewer).
    if (!this.sentInvalidated && this.invalidated())
      outcome = { ...outcome, at: 0, inv: job.results.get(job.key)?.inv ?? deps.records.errors.get(job.key)?.inv };
    deps.write(() => {
      written = writeOutcome(deps.records, job.results, {
        key: job.key,
        rev,
        label: job.label,
        kind: job.kind,
        outcome,
        by: deps.replicaId,
        over,
      });
      // Release our claim in the same transaction: no observer sees it gone before the outcome.
      const claim = deps.records.claims.get(job.key);
      if (claim && claim.replicaId === deps.replicaId && claim.nonce === this.nonce) deps.records.claims.delete(job.key);
    });
    this.state = { phase: "done", written };
    this.unlock();
    deps.emit({ type: "settled", kind: job.kind, key: job.key, rev, outcome: outcome.ok ? "result" : "error", written });
    deps.changed();
  }
}
