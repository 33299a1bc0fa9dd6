import { startAttempt } from "./start-attempt.ts";
import { decide, isTerminal, MAX_STEPS, type Action, type Lifecycle } from "./decide.ts";
import type { EngineOptions } from "./engine-options.ts";
import { destroyEngine, stopAttempt, suspendEngine } from "./engine-stop.ts";
import { ensureDemand } from "./ensure-demand.ts";
import { abortError } from "./errors.ts";
import { Heartbeat } from "./heartbeat.ts";
import { ORIGIN, type Job, type KeyState } from "./job.ts";
import { notifyListeners, resolveWaiters } from "./waiters.ts";
import type { WorkKind } from "./key.ts";
import type { RecordMap } from "./lanes.ts";
import { Liveness, type Verdict } from "./liveness.ts";
import type { ClaimRecord, ResultRecord } from "./records.ts";
import { claimWatchers } from "./claim-rivals.ts";
import { recordedRev } from "./snapshot.ts";
import type { Snapshot } from "./types.ts";
import { KeyStates } from "./key-states.ts";
import { KeyReader, wantedRev } from "./key-reader.ts";
import { Sightings } from "./sightings.ts";
import { WriteBatch } from "./write-batch.ts";
import { KeyLockStandby } from "./key-lock-standby.ts";
import { prepareClaim } from "./prepare-claim.ts";
import { awaitReady, judge } from "./readiness.ts";

/**
 * The claim engine: a loop over `decide` per key. It keeps per key the waiters, listeners and this
 * replica's attempt, turns the doc and the liveness verdicts into a view, and applies the action.
 * Its parts are read by the modules that carry out what it decides (start-attempt.ts, readiness.ts,
 * prepare-claim.ts, ensure-demand.ts): plain functions of the engine, not owners of its state.
 */
export class ClaimEngine {
  readonly liveness: Liveness;
  readonly batch: WriteBatch;
  readonly sightings: Sightings;
  readonly keys: KeyStates;
  readonly reader: KeyReader;
  readonly heartbeat: Heartbeat;
  readonly standby: KeyLockStandby | undefined;
  lifecycle: Lifecycle;
  /** The wait under way for readiness; a resume drops it (the lock let go is waited for again). */
  waitingReady: Promise<void> | undefined;
  readonly watchers: ReturnType<typeof claimWatchers>;
  /** True while the keys decided at readiness are refreshed: a reconnect that failed at once is not waited for again. */
  readied = false;

  constructor(readonly opts: EngineOptions) {
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

  /** Resolves once the key's outcome meets the demand (ensureDemand), rejects on abort or destroy. */
  ensure(
    job: Job,
    signal: AbortSignal | undefined,
    mode: "ensure" | "refetch",
    maxAgeMs?: number,
    skipInFlight = false,
    askedAt?: number,
  ): Promise<Snapshot> {
    if (this.lifecycle === "destroyed") return Promise.reject(abortError("shared-fetch: the store was destroyed"));
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const st = this.keys.get(job.key, job.kind, job.results);
    st.job = job;
    return ensureDemand(this, st, signal, mode, maxAgeMs, skipInFlight, askedAt);
  }

  /** Orderly stop: abort local work, release only claims that carry this replica's id (invariant 5). */
  destroy(): void {
    destroyEngine(this);
  }

  /** A page going into the back/forward cache (or frozen): see suspendEngine. */
  suspend(): void {
    suspendEngine(this);
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

  /** Tells the key's subscribers its snapshot, then decides it again. */
  refresh(st: KeyState): void {
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
        return prepareClaim(this, st, action);
      }
    }
  }

  private apply(st: KeyState, action: Action): void {
    switch (action.type) {
      case "resolve": {
        if (!action.all) judge(this, st, false);
        const { result, error } = this.reader.read(st);
        if (st.attempt && (result?.rev ?? 0) < st.attempt.rev) st.attempt.forListeners = true;
        return resolveWaiters(st, recordedRev(result, error), () => this.reader.compute(st), action.all);
      }
      case "abort":
        // The waiters that joined the replaced request join the newer one: never an older outcome
        // it would have replaced (freshness.ts, outran), and every one gets the new result.
        if (action.reason === "refetched") for (const w of st.waiters) w.minRev = Math.max(w.minRev, wantedRev(st) ?? 0);
        return stopAttempt(st, action.reason);
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
        if (!resync) return startAttempt(this, st, action.rev, action.from);
        this.lifecycle = "starting";
        return awaitReady(this, () => resync);
      }
      case "wait":
        return this.keys.recheckAt(st, action.until);
      case "await-ready":
        // Shown by the inspector: a key asked for before the store is ready waits for the sync.
        this.opts.changed?.();
        return awaitReady(this);
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

  write(fn: () => void): void {
    this.opts.records.doc.transact(fn, ORIGIN);
  }
}
