import type { AttemptPhase } from "./decide.ts";
import type { AttemptDeps, ClaimOrder, KeyLockAsked, StopReason } from "./attempt-deps.ts";
import { randomId, type Job } from "./job.ts";
import { claimRank, type ClaimRecord } from "./records.ts";
import { startSettleTimer, type SettleTimer } from "./settle-timer.ts";

const noop = () => {};

export type AttemptState =
  | { phase: "locking" }
  | { phase: "settling"; timer: SettleTimer | undefined }
  | { phase: "settled" }
  | { phase: "running" }
  | { phase: "done"; written: boolean }
  | { phase: "stopped"; reason: StopReason };

/** The server's order of a claim (see Settle.fence): asked, then answered; the strongest rival seen meanwhile. */
type Fence = { pending: boolean; order?: ClaimOrder; ahead?: ClaimRecord; unwatch?: () => void };

/**
 * The claim half of an Attempt (attempt.ts): the key's lock, the claim record and its write, the
 * sync server's order (fence) and the settle window, up to `settled`. The request half, from the
 * dispatch to the writeback and the release, is the Attempt's own.
 */
export abstract class AttemptClaim {
  readonly nonce = randomId();
  protected state: AttemptState = { phase: "settling", timer: undefined };
  private releaseKey: (() => void) | undefined;
  /**
   * The key lock asked for, granted or not, with its own abort (not the request's): a request
   * replaced before the grant hands the request on rather than asking again behind other tabs.
   */
  private lock: KeyLockAsked | undefined;
  protected record: ClaimRecord | undefined;
  protected fence: Fence | undefined;
  private windowDone = false;

  constructor(
    readonly job: Job,
    readonly rev: number,
    /**
     * Lives for the key's listeners, not its waiters: started with no waiter here (abandoned work),
     * or its waiters were answered by another replica's error while it still runs (a failing
     * duplicate must not cost the healthy original: its result replaces that error).
     */
    public forListeners: boolean,
    protected readonly deps: AttemptDeps,
  ) {}

  /** `locking`, `settling`, `settled` or `running` while live; undefined once done or stopped. */
  get phase(): AttemptPhase | undefined {
    const { phase } = this.state;
    return phase === "done" || phase === "stopped" ? undefined : phase;
  }

  /** The server's order of this claim among its rivals', once its fence was answered. */
  get order(): { order?: ClaimOrder; ahead?: string } | undefined {
    const f = this.fence;
    return f && { order: f.order, ahead: f.ahead?.replicaId };
  }

  /** Takes the key's lock first where there is one, then writes the claim (see `write`). */
  claim(takeoverOf?: string): void {
    const { keyLock, replaces } = this.deps;
    if (!keyLock) return this.write(takeoverOf);
    this.state = { phase: "locking" };
    let asked = replaces?.handOver();
    if (!asked) {
      const cancel = new AbortController();
      asked = { granted: keyLock(this.job.key, cancel.signal), cancel };
    }
    this.lock = asked;
    // `release` undefined: refused (an opaque origin's SecurityError), not withdrawn by us (unlock,
    // handOver). Claimed as a store without key locks does, or the claim waits for good (invariant 8).
    const granted = (release?: () => void) => {
      // Handed over to the request that replaced ours, or let go (unlock releases it).
      if (this.lock !== asked) return;
      this.releaseKey = release;
      if (this.state.phase !== "locking") return;
      if (!release) this.deps.settle = this.deps.resettle!();
      const { settle, runsAtOnce } = this.deps;
      // Nothing can change the decision between here and the claim's write (same task): send
      // the request first. The other tabs and peers still get the claim in this task.
      if (settle.ms === 0 && !settle.fence && runsAtOnce?.()) {
        this.write(takeoverOf, true);
      } else this.write(takeoverOf);
      this.deps.changed();
    };
    asked.granted.then(granted, () => granted());
  }

  /**
   * Writes the claim (replacing whatever stood: never through "no claim", invariant 4) and starts
   * settling; `atOnce`: dispatches first, then writes the claim, with no window.
   */
  private write(takeoverOf?: string, atOnce = false): void {
    const { job, rev, deps } = this;
    const record: ClaimRecord = {
      replicaId: deps.replicaId,
      nonce: this.nonce,
      rev,
      leaseMs: job.leaseMs,
      label: job.label,
      kind: job.kind,
      at: Date.now(),
    };
    const browserId = deps.browserId();
    if (browserId) record.browserId = browserId;
    if (deps.settle.eager) record.eager = true;
    // A takeover carries on the request it replaces: the same Idempotency-Key (invariant 12).
    const replaced = takeoverOf === undefined ? deps.joined : deps.records.claims.get(job.key);
    record.ik = (replaced?.rev === rev && replaced.ik) || randomId();
    if (takeoverOf !== undefined) {
      record.takeover = true;
      // Named, so that a replica that never saw it still counts its claimant's beats (liveness.ts).
      if (replaced?.rev === rev) record.replaced = replaced.nonce;
    }
    this.record = record;
    // The fence goes out right before the transaction that carries the claim, on the same
    // connection (see Settle.fence); whatever reaches this doc until its answer came first.
    const fence = deps.settle.fence;
    let ask: (() => void) | undefined;
    if (fence) {
      const pending: Fence = { pending: true };
      this.fence = pending;
      ask = () => {
        if (this.state.phase === "stopped" || this.fence !== pending) return;
        pending.unwatch = deps.watchClaims(job.key, () => this.noteRival(pending));
        if (!fence.ask((inOrder) => this.fenceAnswered(inOrder))) this.fenceAnswered(false);
      };
    }
    // Beating from the claim on, not from the dispatch: a settle window longer than the lease
    // (a slow link's, a busy loop's) would let the claim go stale before it runs, and two
    // replicas would take it over from each other for ever, neither ever sending the request.
    // Before anything is told of the claim: a listener that stops it (an abort, a destroy) must
    // find the beat to remove, or it beats for ever while idle.
    deps.heartbeat.add(this, job.leaseMs);
    const { ms, why } = deps.settle;
    const claimed = () =>
      deps.emit({
        type: "claimed",
        kind: job.kind,
        key: job.key,
        label: job.label,
        rev,
        ...(takeoverOf ? { takeoverOf } : {}),
        settleMs: ms,
        settleWhy: why,
      });
    if (atOnce) {
      claimed();
      this.dispatch();
    } else {
      // Settling before the write: the first write of a tick (and its fence) goes out at once.
      this.startWindow(ms);
    }
    deps.batch(() => {
      // Batched, the write comes a microtask after the decision: a claim of a newer revision
      // written meanwhile (a refetch past the one we take over) is not ours to replace; at the end
      // of the window we yield to it. One of our revision is (a takeover, eager or not).
      if (this.state.phase === "stopped" || (deps.records.claims.get(job.key)?.rev ?? 0) > rev) return;
      deps.records.claims.set(job.key, record);
      // Ours stands now: the claims it replaced are gone from the doc (and from memory).
      deps.replaces = undefined;
    }, ask);
    if (!atOnce) claimed();
    deps.seen(record);
  }

  /** Settles once the window passed and the fence (if any) was answered; even a zero window a task later, after the batched claim was written. */
  private startWindow(ms: number): void {
    this.windowDone = false;
    const done = () => {
      this.windowDone = true;
      this.maybeSettled();
    };
    if (ms > 0) this.state = { phase: "settling", timer: startSettleTimer(ms, done) };
    else {
      this.state = { phase: "settling", timer: undefined };
      queueMicrotask(done);
    }
  }

  private maybeSettled(): void {
    if (this.state.phase !== "settling" || !this.windowDone || this.fence?.pending) return;
    this.state = { phase: "settled" };
    this.deps.changed();
  }

  /**
   * Runs inside the connection's message handler, right after the answer was applied and before
   * any microtask (the lanes' cleanup among them): the rivals that reached the server first are
   * all in the doc now, and still in their own lanes.
   */
  private fenceAnswered(inOrder: boolean): void {
    const { fence, state, deps, job } = this;
    if (!fence || !fence.pending) return;
    fence.pending = false;
    fence.unwatch?.();
    if (state.phase !== "settling") return;
    const told = (order: "first" | "behind" | "unknown") =>
      deps.emit({ type: "ordered", kind: job.kind, key: job.key, rev: this.rev, order });
    if (!inOrder) {
      // Nothing learnt: wait out the full window from the claim, then judge as without a fence.
      this.fence = undefined;
      state.timer?.cancel();
      this.startWindow(deps.settle.fence!.fallbackMs);
      return told("unknown");
    }
    this.noteRival(fence);
    const ahead = fence.ahead;
    const order = (fence.order = ahead ? "behind" : "first");
    if (ahead) {
      state.timer?.cancel();
      // Our claim may have won the doc's election over the one the server saw first: stand that one
      // in its place, in one transaction (never through "no claim", invariant 4).
      if (deps.records.claims.get(job.key)?.nonce === this.nonce) deps.write(() => deps.records.claims.set(job.key, ahead));
      deps.changed();
    } else this.maybeSettled();
    // Told once the claim stands where the order put it: a listener runs inside this answer's handler.
    told(order);
  }

  /** Keeps the strongest rival seen while the fence is pending (a newer revision, or eager, first). */
  private noteRival(fence: Fence): void {
    const rival = this.deps.rivalAhead(this.job.key, this.nonce, this.rev);
    const best = fence.ahead;
    if (rival && (!best || claimRank(rival) > claimRank(best))) fence.ahead = rival;
  }

  /** The key lock of a replaced attempt (held, or still asked for), for the claim that replaces it. */
  handOver(): KeyLockAsked | undefined {
    const lock = this.lock;
    this.lock = this.releaseKey = undefined;
    return lock;
  }

  protected unlock(): void {
    const { lock, releaseKey } = this;
    this.lock = this.releaseKey = undefined;
    if (releaseKey) return releaseKey();
    lock?.cancel.abort();
    lock?.granted.then((release) => release(), noop);
  }

  /** Sends the request: decided by the engine, or at once once the key's lock is held (see claim). */
  abstract dispatch(): void;
}
