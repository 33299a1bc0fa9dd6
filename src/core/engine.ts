import { Attempt } from "./attempt.ts";
import type { StopReason } from "./attempt-deps.ts";
import { decide, isTerminal, MAX_STEPS, type Action, type KeyView, type Lifecycle } from "./decide.ts";
import type { EngineOptions } from "./engine-options.ts";
import { abortError } from "./errors.ts";
import { meetsDemand } from "./freshness.ts";
import { Heartbeat } from "./heartbeat.ts";
import { ORIGIN, type Job, type KeyState } from "./job.ts";
import { addWaiter, demandedRev, hasJudge, judgeWaiters, notifyListeners, rejectWaiters, resolveWaiters } from "./waiters.ts";
import type { WorkKind } from "./key.ts";
import type { RecordMap } from "./lanes.ts";
import { Liveness, type Verdict } from "./liveness.ts";
import type { ClaimRecord, ResultRecord } from "./records.ts";
import { claimWatchers, rivalAhead } from "./claim-rivals.ts";
import { recordedRev } from "./snapshot.ts";
import type { Snapshot } from "./types.ts";
import { KeyStates } from "./key-states.ts";
import { KeyReader, wantedRev } from "./key-reader.ts";
import { Sightings } from "./sightings.ts";
import { WriteBatch } from "./write-batch.ts";
import { KeyLockStandby } from "./key-lock-standby.ts";

/**
 * The claim engine: a loop over `decide` per key. It keeps per key the waiters, listeners and this
 * replica's attempt, turns the doc and the liveness verdicts into a view, and applies the action.
 */
export class ClaimEngine {
  readonly liveness: Liveness;
  readonly batch: WriteBatch;
  private readonly sightings: Sightings;
  private readonly keys: KeyStates;
  private readonly reader: KeyReader;
  private readonly heartbeat: Heartbeat;
  private readonly standby: KeyLockStandby | undefined;
  private lifecycle: Lifecycle;
  /** The wait under way for readiness; a resume drops it (the lock let go is waited for again). */
  private waitingReady: Promise<void> | undefined;
  private readonly watchers: ReturnType<typeof claimWatchers>;
  private readied = false;

  constructor(private readonly opts: EngineOptions) {
    const { records } = opts;
    this.lifecycle = opts.ready ? "starting" : "ready";
    this.batch = new WriteBatch(records.doc, ORIGIN);
    this.reader = new KeyReader({
      records,
      replicaId: opts.replicaId,
      lifecycle: () => this.lifecycle,
      verdict: (key, claim, now) => this.verdict(key, claim, now),
      at: opts.at,
      awaited: opts.awaited,
    });
    this.heartbeat = new Heartbeat(records.beats, opts.replicaId, (fn) => this.write(fn));
    this.keys = new KeyStates({ refresh: (st) => this.refresh(st), beforeFlush: () => this.sightings.beforeFlush() });
    this.sightings = new Sightings({
      records,
      replicaId: opts.replicaId,
      markDirty: (keys) => this.keys.markDirty(keys),
      owns: (key, claim) => this.owns(key, claim),
      batch: (fn) => this.batch.queue(fn),
      watchClaimant: opts.watchClaimant,
      revived: opts.revived,
    });
    this.liveness = this.sightings.liveness;
    this.standby = opts.keyLock ? new KeyLockStandby(opts.keyLock) : undefined;
    this.watchers = claimWatchers(records.claims);
  }

  get replicaId(): string {
    return this.opts.replicaId;
  }

  /** Every key this replica holds state for (the inspector reads them). */
  states(): Iterable<KeyState> {
    return this.keys.all();
  }

  snapshot(key: string, kind: WorkKind, results: RecordMap<ResultRecord>): Snapshot {
    return this.reader.compute(this.keys.get(key, kind, results));
  }

  /** A listener shows the key: it never starts new work, but it finishes abandoned work (see decide). */
  subscribe(job: Job, listener: () => void): () => void {
    const st = this.keys.get(job.key, job.kind, job.results);
    st.job ??= job;
    st.listeners.add(listener);
    st.notified = this.reader.compute(st);
    this.interest(st);
    return () => {
      st.listeners.delete(listener);
      this.interest(st);
    };
  }

  /** This replica's own interest in the key changed (`inspect().keys[].local`): no doc change tells it. */
  private interest(st: KeyState): void {
    this.opts.changed?.();
    this.step(st);
  }

  /**
   * `refetch`: wait for a revision newer than what is recorded now (joining one already claimed,
   * unless `skipInFlight`: then newer than that one too).
   * `maxAgeMs`: an ensure whose recorded outcome is older than that is treated like a refetch.
   */
  ensure(
    job: Job,
    signal: AbortSignal | undefined,
    mode: "ensure" | "refetch",
    maxAgeMs?: number,
    skipInFlight = false,
  ): Promise<Snapshot> {
    if (this.lifecycle === "destroyed") return Promise.reject(abortError("shared-fetch: the store was destroyed"));
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const st = this.keys.get(job.key, job.kind, job.results);
    st.job = job;
    const { result, error, claim } = this.reader.read(st);
    // Older outcomes above a claim made after them answer no one: the ask joins that claim, whose
    // result is recorded at their revision (a skipInFlight refetch wants one past it).
    const over = this.reader.over(st, true);
    const recorded = over ? 0 : recordedRev(result, error);
    // A freshness demand an older outcome cannot meet: wait for a newer revision, as a refetch does.
    const tooOld = recorded > 0 && maxAgeMs !== undefined && !meetsDemand(result, error, Date.now(), maxAgeMs, this.opts.at);
    const skip = mode === "refetch" && skipInFlight;
    const minRev = demandedRev(mode === "ensure" && !tooOld ? "ensure" : "refetch", recorded, over ?? claim?.rev, st.attempt?.rev, skip);
    if (minRev === 0) return Promise.resolve(this.reader.compute(st));
    // Still starting, nothing seen yet: a result persisted long ago may load before the store is
    // ready, and must not pass for fresh (a return visit revalidates what is stale), nor for the
    // newer revision a refetch asked for (one written since the ask is newer). Nor may a claim
    // not seen yet pass for the revision a skipInFlight refetch asked for.
    const demand = mode === "refetch" ? 0 : maxAgeMs;
    const judge = this.lifecycle === "starting" && ((demand !== undefined && recorded === 0) || skip);
    // Refreshed, not only decided: a waiter makes the key pending for its subscribers at once.
    return addWaiter(
      st,
      minRev,
      signal,
      () => (this.opts.changed?.(), this.refresh(st)),
      judge ? { askedAt: Date.now(), maxAgeMs: demand ?? 0, skip } : undefined,
    );
  }

  /** Orderly stop: abort local work, release only claims that carry this replica's id (invariant 5). */
  destroy(): void {
    if (this.lifecycle === "destroyed") return;
    this.lifecycle = "destroyed";
    // Its claims were never seen by anyone: drop what is queued, write nothing more through it.
    this.batch.stop();
    for (const st of this.keys.all()) {
      this.stopAttempt(st, "destroyed");
      rejectWaiters(st, abortError("shared-fetch: the store was destroyed"));
      // Its subscribers see the last outcome, with no claim in flight: it can see none any more.
      notifyListeners(st, this.reader.compute(st));
    }
    this.keys.stop();
    this.standby?.destroy();
    const { claims } = this.opts.records;
    const own = claims.entries().filter(([, claim]) => claim.replicaId === this.replicaId);
    if (own.length) this.write(() => own.forEach(([key]) => claims.delete(key)));
    this.heartbeat.stop();
    this.sightings.stop();
    this.watchers.stop();
  }

  /**
   * A page going into the back/forward cache (or frozen) cannot run its requests: abort them and
   * mark its claims abandoned so others take over at once; waiters stay and re-decide on resume.
   */
  suspend(): void {
    if (this.lifecycle === "destroyed" || this.lifecycle === "suspended") return;
    this.lifecycle = "suspended";
    for (const st of this.keys.all()) {
      this.stopAttempt(st, "hidden");
      // Its lock let go, the claimant counts its waits no more: they are withdrawn, and published
      // again on resume (unchanged, they would not reach the claimant, which would abort for good).
      if (st.waitsFor !== undefined) this.opts.waits?.(st.key, (st.waitsFor = undefined));
    }
    // A frozen page holds no key: the tabs still running must not queue behind it.
    this.standby?.stop();
  }

  resume(): void {
    if (this.lifecycle !== "suspended") return;
    // The lock was let go while suspended: claims wait for it again (and, through `ready`, for a
    // reconnect still under way), not for the wait under way alone.
    this.lifecycle = this.opts.ready ? "starting" : "ready";
    this.waitingReady = undefined;
    for (const st of [...this.keys.all()]) this.refresh(st);
  }

  /** Re-check keys whose claimant was seen to die or to come back (presence, Web Locks). */
  markClaimantDirty(replicaId: string): void {
    this.sightings.markClaimantDirty(replicaId);
  }

  /** Decide these keys again (another replica's waits on them changed). */
  recheck(keys: Iterable<string>): void {
    this.keys.markDirty(keys);
  }

  /** This replica's own browser id changed: its verdict on every foreign claim may change with it. */
  recheckClaims(): void {
    this.keys.markDirty(this.opts.records.claims.entries().map(([key]) => key));
  }

  /** This replica's own claim on the key is under way (from its settle window to its release). */
  hasAttempt(key: string): boolean {
    return this.keys.peek(key)?.attempt !== undefined;
  }

  /** True while this replica has waiters, listeners or work for the key (retention must keep it). */
  isBusy(key: string): boolean {
    const st = this.keys.peek(key);
    return !!st && (st.waiters.size > 0 || st.listeners.size > 0 || st.attempt !== undefined);
  }

  /** The liveness verdict on a claim that is not this replica's own, on this replica's clock. */
  verdict(key: string, claim: ClaimRecord, now = Date.now()): Verdict {
    return this.sightings.verdict(key, claim, now);
  }

  /** Whether a claim standing in the doc is one this replica made (its id and a nonce it issued). */
  owns(key: string, claim: ClaimRecord): boolean {
    const st = this.keys.peek(key);
    return !!st && this.reader.isMine(st, claim);
  }

  private refresh(st: KeyState): void {
    notifyListeners(st, this.reader.compute(st));
    this.step(st);
  }

  /** The loop: decide, apply, until the decision is to wait. */
  private step(st: KeyState): void {
    for (let i = 0; i < MAX_STEPS; i++) {
      const action = decide(this.reader.view(st));
      this.apply(st, action);
      if (isTerminal(action)) {
        st.replaced?.letGo();
        st.replaced = undefined;
        return this.prepareClaim(st, action);
      }
    }
  }

  /**
   * Readies what a claim that may follow soon needs: the store's own readiness (a replica that
   * waits on a live claim gets ready now, not at the claimant's death), and the key's lock, queued
   * for now (see KeyLockStandby) — for a claim due once the store is ready, or for the takeover of
   * a claimant of this browser, whose crash is seen by its lock. Any other decision lets it go.
   */
  private prepareClaim(st: KeyState, action: Action): void {
    // Waiting on a live foreign claim, the claimant is told so (it keeps its request for us once
    // its own interest ends), and told when we stop: resolved, aborted, or taking it over.
    let waits: number | undefined;
    if (action.type === "wait") for (const w of st.waiters) waits = Math.min(w.minRev, waits ?? w.minRev);
    if (waits !== st.waitsFor) this.opts.waits?.(st.key, (st.waitsFor = waits));
    // Waiting on it (the claim the waiters' view read: st.joined), an ask its result answers joined
    // the claimant's request: this replica sends nothing.
    const claim = st.joined;
    if (claim && waits! <= claim.rev && st.told !== claim.rev)
      this.opts.emit({ type: "joined", kind: st.kind, key: st.key, rev: (st.told = claim.rev), to: claim.replicaId });
    if (action.type === "wait" && this.lifecycle === "starting") this.awaitReady();
    if (!this.standby) return;
    // Not once started (a reconnect's sync, at a claim or a first ask): the other tabs of this
    // browser, in sync, claim meanwhile.
    const soon = (action.type === "await-ready" && !this.opts.started?.()) || (action.type === "wait" && action.until === Infinity);
    if (soon) this.standby.want(st.key);
    else this.standby.drop(st.key);
  }

  private apply(st: KeyState, action: Action): void {
    switch (action.type) {
      case "resolve": {
        if (!action.all) this.judge(st, false);
        const { result, error } = this.reader.read(st);
        if (st.attempt && (result?.rev ?? 0) < st.attempt.rev) st.attempt.forListeners = true;
        return resolveWaiters(st, recordedRev(result, error), this.reader.compute(st), action.all);
      }
      case "abort":
        // The waiters that joined the replaced request join the newer one: never an older outcome
        // it would have replaced (freshness.ts, outran), and every one gets the new result.
        if (action.reason === "refetched") for (const w of st.waiters) w.minRev = Math.max(w.minRev, wantedRev(st) ?? 0);
        return this.stopAttempt(st, action.reason);
      case "yield":
        // Our claim stepped back: the wait that follows is told as the yield, not as a join. One
        // still waiting for the key's lock wrote nothing: its wait is a join.
        if (st.attempt?.phase != "locking") st.told = st.joined?.rev;
        st.attempt?.yieldTo(action.to);
        st.attempt = undefined;
        return;
      case "dispatch":
        return st.attempt?.dispatch();
      case "reassert":
        return st.attempt?.reassert();
      case "claim": {
        // Reconnecting to other devices: what they did meanwhile is on its way (a reconnect's
        // refetch would send a request another device has in flight). Waits as the first claims do.
        const resync = this.readied ? undefined : this.opts.resync?.();
        if (!resync) return this.claim(st, action.rev, action.from);
        this.lifecycle = "starting";
        return this.awaitReady(() => resync);
      }
      case "wait":
        return this.keys.recheckAt(st, action.until);
      case "await-ready":
        // Shown by the inspector: a key asked for before the store is ready waits for the sync.
        this.opts.changed?.();
        return this.awaitReady();
      case "drop":
        return this.keys.drop(st);
      case "none":
        return;
    }
  }

  /** `starting`: the first claims wait for this replica's lock and the doc's initial sync (see EngineOptions.ready). */
  get stage(): Lifecycle {
    return this.lifecycle;
  }

  private awaitReady(ready = this.opts.ready): void {
    if (this.waitingReady || !ready) return;
    const wait = (this.waitingReady = ready());
    void wait.then(() => {
      if (this.waitingReady !== wait) return;
      this.waitingReady = undefined;
      if (this.lifecycle !== "starting") return;
      this.lifecycle = "ready";
      // The claims decided now have waited: a reconnect that failed at once is not waited for again.
      this.readied = true;
      for (const st of [...this.keys.all()]) {
        this.judge(st, true);
        this.refresh(st);
      }
      this.readied = false;
    });
  }

  /** Judges the key's waiters asked while starting against what is recorded now (judgeWaiters). */
  private judge(st: KeyState, final: boolean): void {
    // Every resolve passes here: nothing to read unless a waiter asked while starting.
    if (!hasJudge(st)) return;
    const { result, error, claim } = this.reader.read(st);
    const recorded = recordedRev(result, error);
    const next = (skip?: boolean) => demandedRev("refetch", recorded, claim?.rev, st.attempt?.rev, skip);
    // Its subscribers were told of the outcome as if it were taken: pending again.
    if (judgeWaiters(st, { result, error, recorded }, next, final)) notifyListeners(st, this.reader.compute(st));
  }

  private claim(st: KeyState, rev: number, takeoverOf?: string): void {
    const job = st.job;
    if (!job) return;
    const { records, replicaId, emit } = this.opts;
    const standby = this.standby;
    const replaced = st.replaced;
    st.replaced = undefined;
    const attempt: Attempt = new Attempt(job, rev, st.waiters.size === 0, {
      records,
      replicaId,
      keyLock: standby ? (key, signal) => standby.take(key, signal) : undefined,
      replaces: replaced,
      emit,
      joined: st.joined,
      heartbeat: this.heartbeat,
      browserId: this.opts.browserId,
      settle: this.opts.settle(),
      write: (fn) => this.write(fn),
      batch: (fn, before) => this.batch.queue(fn, before),
      seen: (record) => this.liveness.seeClaim(st.key, record),
      rivalAhead: (key, nonce, rev) => rivalAhead(records.claims, this.liveness, replicaId, key, nonce, rev),
      watchClaims: this.watchers.watch,
      over: () => this.reader.over(st),
      runsAtOnce: (): boolean => {
        const view = this.reader.view(st);
        if (!view.attempt) return false;
        const claim: KeyView["claim"] = { replicaId, nonce: attempt.nonce, rev, mine: true, stale: false, staleAt: Infinity };
        return decide({ ...view, claim, attempt: { ...view.attempt, phase: "settled" } }).type === "dispatch";
      },
      changed: () => {
        if (st.attempt === attempt && attempt.phase === undefined) {
          st.attempt = undefined;
          st.settled = Math.max(st.settled, attempt.rev);
        }
        this.keys.markDirty([st.key]);
      },
    });
    st.attempt = attempt;
    // The nonces this replica issued for the key (the last few: older claims are long overwritten).
    st.nonces = [...st.nonces.slice(-7), attempt.nonce];
    attempt.claim(takeoverOf);
    if (attempt.phase === "locking") this.opts.changed?.();
  }

  private stopAttempt(st: KeyState, reason: StopReason): void {
    const attempt = st.attempt;
    if (!attempt) return;
    st.attempt = undefined;
    attempt.stop(reason);
    if (reason === "refetched") st.replaced = attempt;
  }

  private write(fn: () => void): void {
    this.opts.records.doc.transact(fn, ORIGIN);
  }
}
