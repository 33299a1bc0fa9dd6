import { Attempt, type StopReason } from "./attempt.ts";
import { decide, isTerminal, type Action, type KeyView, type Lifecycle } from "./decide.ts";
import type { DocRecords } from "./doc-records.ts";
import { abortError } from "./errors.ts";
import type { StoreEvent } from "./events.ts";
import { Heartbeat } from "./heartbeat.ts";
import { ORIGIN, type Job, type KeyState, type Waiter } from "./job.ts";
import type { WorkKind } from "./key.ts";
import type { RecordMap } from "./lanes.ts";
import { Liveness, type Verdict } from "./liveness.ts";
import type { ClaimRecord, ResultRecord } from "./records.ts";
import { deriveSnapshot, recordedRev, sameSnapshot } from "./snapshot.ts";
import type { Snapshot } from "./types.ts";
import { KeyStates } from "./key-states.ts";
import { WriteBatch } from "./write-batch.ts";

export type EngineOptions = {
  records: DocRecords;
  replicaId: string;
  /** This replica's browser id, once its Web Lock is held (claims then name it). */
  browserId: () => string | undefined;
  /**
   * Called for a live-looking foreign claim; returns true when its claimant is watched by an exact
   * event (a Web Lock of this browser), which then replaces the lease.
   */
  watchClaimant?: (claim: ClaimRecord) => boolean;
  settleMs: number;
  emit: (event: StoreEvent) => void;
  /**
   * Claims wait for this (the grant of this replica's own Web Lock, a few ms): a claim written
   * before it could not name its browser, and its crash would then be found only by the lease.
   */
  ready?: () => Promise<void>;
};

/** How many decisions one key may take in a row before the loop stops (each one changes the view). */
const MAX_STEPS = 16;

/**
 * The claim engine: a loop over `decide` per key. It keeps per key the waiters, listeners and this
 * replica's attempt, turns the doc and the liveness verdicts into a view, and applies the action.
 */
export class ClaimEngine {
  readonly liveness = new Liveness();
  readonly batch: WriteBatch;
  private readonly keys: KeyStates;
  private readonly heartbeat: Heartbeat;
  private lifecycle: Lifecycle;
  private waitingReady = false;
  private readonly unobserve: (() => void)[] = [];

  constructor(private readonly opts: EngineOptions) {
    const { records } = opts;
    this.lifecycle = opts.ready ? "starting" : "ready";
    this.batch = new WriteBatch(records.doc, ORIGIN);
    this.heartbeat = new Heartbeat(records.beats, opts.replicaId, (fn) => this.write(fn));
    const dirtyClaims = new Set<string>();
    this.keys = new KeyStates({
      refresh: (st) => this.refresh(st),
      // Before deciding: start the silence clock of every claim that changed, on this clock.
      beforeFlush: () => {
        const at = Date.now();
        for (const key of dirtyClaims) {
          const claim = records.claims.get(key);
          this.liveness.seeClaim(key, claim, at);
          if (claim) this.disown(key, claim);
        }
        dirtyClaims.clear();
      },
    });
    // Everything already in the doc is "seen now": a replica arriving after a crash waits one lease.
    const now = Date.now();
    for (const [key, claim] of records.claims.entries()) this.liveness.seeClaim(key, claim, now);
    for (const [id, beat] of records.beats.entries()) this.liveness.seeBeat(id, beat, now);
    const onKeys = (keys: Set<string>) => this.keys.markDirty(keys);
    this.unobserve.push(
      records.claims.onChange((keys) => {
        keys.forEach((k) => dirtyClaims.add(k));
        this.keys.markDirty(keys);
      }),
      records.results.onChange(onKeys),
      records.programs.onChange(onKeys),
      records.errors.onChange(onKeys),
      records.beats.onChange((ids) => {
        const at = Date.now();
        for (const id of ids) if (this.liveness.seeBeat(id, records.beats.get(id), at)) this.markClaimantDirty(id);
      }),
    );
  }

  get replicaId(): string {
    return this.opts.replicaId;
  }

  /** Every key this replica holds state for (the inspector reads them). */
  states(): Iterable<KeyState> {
    return this.keys.all();
  }

  snapshot(key: string, kind: WorkKind, results: RecordMap<ResultRecord>): Snapshot {
    return this.compute(this.keys.get(key, kind, results));
  }

  /** A listener shows the key: it never starts new work, but it finishes abandoned work (see decide). */
  subscribe(job: Job, listener: () => void): () => void {
    const st = this.keys.get(job.key, job.kind, job.results);
    st.job ??= job;
    st.listeners.add(listener);
    st.notified = this.compute(st);
    this.step(st);
    return () => {
      st.listeners.delete(listener);
      this.step(st);
    };
  }

  /** `refetch`: wait for a revision newer than what is recorded now (joining one already claimed). */
  ensure(job: Job, signal: AbortSignal | undefined, mode: "ensure" | "refetch"): Promise<Snapshot> {
    if (this.lifecycle === "destroyed") return Promise.reject(abortError("shared-fetch: the store was destroyed"));
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const st = this.keys.get(job.key, job.kind, job.results);
    st.job = job;
    const { result, error, claim } = this.read(st);
    const recorded = recordedRev(result, error);
    if (mode === "ensure" && recorded > 0) return Promise.resolve(this.compute(st));
    let minRev = 1;
    if (mode === "refetch") {
      const ours = st.attempt && st.attempt.rev > recorded ? st.attempt.rev : 0;
      minRev = Math.max(claim && claim.rev > recorded ? claim.rev : 0, ours) || recorded + 1;
    }
    return new Promise<Snapshot>((resolve, reject) => {
      const onAbort = () => {
        st.waiters.delete(waiter);
        reject(abortError(signal?.reason));
        this.step(st);
      };
      const waiter: Waiter = { minRev, resolve, reject, cleanup: () => signal?.removeEventListener("abort", onAbort) };
      signal?.addEventListener("abort", onAbort, { once: true });
      st.waiters.add(waiter);
      this.step(st);
    });
  }

  /** Orderly stop: abort local work, release only claims that carry this replica's id (invariant 5). */
  destroy(): void {
    if (this.lifecycle === "destroyed") return;
    this.lifecycle = "destroyed";
    this.batch.discard();
    for (const st of this.keys.all()) {
      this.stopAttempt(st, "destroyed");
      for (const w of st.waiters) {
        w.cleanup();
        w.reject(abortError("shared-fetch: the store was destroyed"));
      }
      st.waiters.clear();
    }
    this.keys.stop();
    const { claims } = this.opts.records;
    const own = claims.entries().filter(([, claim]) => claim.replicaId === this.replicaId);
    if (own.length) this.write(() => own.forEach(([key]) => claims.delete(key)));
    this.heartbeat.stop();
    this.batch.stop();
    this.unobserve.forEach((off) => off());
  }

  /**
   * A page going into the back/forward cache (or frozen) cannot run its requests: abort them and
   * mark its claims abandoned so others take over at once; waiters stay and re-decide on resume.
   */
  suspend(): void {
    if (this.lifecycle === "destroyed" || this.lifecycle === "suspended") return;
    this.lifecycle = "suspended";
    for (const st of this.keys.all()) this.stopAttempt(st, "hidden");
  }

  resume(): void {
    if (this.lifecycle !== "suspended") return;
    // The lock was let go while suspended: claims wait for it again.
    this.lifecycle = this.opts.ready ? "starting" : "ready";
    for (const st of [...this.keys.all()]) this.refresh(st);
  }

  /** Re-check keys whose claimant was seen to die or to come back (presence, Web Locks). */
  markClaimantDirty(replicaId: string): void {
    const keys = new Set<string>();
    for (const [key, claim] of this.opts.records.claims.entries()) if (claim.replicaId === replicaId) keys.add(key);
    this.keys.markDirty(keys);
  }

  /** True while this replica has waiters, listeners or work for the key (retention must keep it). */
  isBusy(key: string): boolean {
    const st = this.keys.peek(key);
    return !!st && (st.waiters.size > 0 || st.listeners.size > 0 || st.attempt !== undefined);
  }

  /** The liveness verdict on a claim that is not this replica's own, on this replica's clock. */
  verdict(key: string, claim: ClaimRecord, now = Date.now()): Verdict {
    // Under our id but not made by us (forged, or a namesake): we know nobody works on it.
    if (claim.replicaId === this.replicaId) return { stale: true, reason: "disowned", staleAt: 0, lastSignAt: now, leaseMs: claim.leaseMs, exact: true };
    return this.liveness.verdict(key, claim, now, this.opts.watchClaimant?.(claim) ?? false);
  }

  /** Whether a claim standing in the doc is one this replica made (its id and a nonce it issued). */
  owns(key: string, claim: ClaimRecord): boolean {
    const st = this.keys.peek(key);
    return !!st && this.isMine(st, claim);
  }

  /**
   * A claim under our id that we did not make is marked abandoned, so every replica takes it over
   * at once: our heartbeats must not vouch for work nobody does (forged claims).
   */
  private disown(key: string, claim: ClaimRecord): void {
    if (claim.replicaId !== this.replicaId || claim.abandoned || this.owns(key, claim)) return;
    const { claims } = this.opts.records;
    this.batch.queue(() => {
      const now = claims.get(key);
      if (now && now.nonce === claim.nonce && !now.abandoned) claims.set(key, { ...now, abandoned: true });
    });
  }

  /**
   * Yjs applies a delete set even when the insert that justified it is still pending (its writer's
   * earlier updates have not arrived yet), so a replaced result can be seen deleted before its
   * replacement arrives. A result once seen therefore bridges a *missing* record while this
   * replica holds the key: data shown once never flips back to none (invariants 7, 8).
   */
  private read(st: KeyState) {
    const { claims, errors } = this.opts.records;
    const claim = claims.get(st.key);
    const inDoc = st.results.get(st.key);
    if (inDoc) st.seen = inDoc;
    // The record is gone, yet the key is claimed below what we remember: it was removed on
    // purpose (retention, eviction) and work restarted, so the memory no longer stands.
    else if (st.seen && claim && claim.rev < st.seen.rev) st.seen = undefined;
    return { result: st.seen, error: errors.get(st.key), claim };
  }

  private compute(st: KeyState): Snapshot {
    const { result, error, claim } = this.read(st);
    const now = Date.now();
    const next = deriveSnapshot({
      result,
      error,
      claim,
      localRev: st.attempt?.rev,
      replicaId: this.replicaId,
      isMine: (c) => this.isMine(st, c),
      isStale: (c) => this.verdict(st.key, c, now).stale,
    });
    if (!sameSnapshot(st.snapshot, next)) st.snapshot = next;
    return st.snapshot as Snapshot;
  }

  /** A claim under our id is ours only if we made it: a forged nonce is disowned (issue: forged claims). */
  private isMine(st: KeyState, claim: ClaimRecord): boolean {
    return claim.replicaId === this.replicaId && (st.attempt?.nonce === claim.nonce || st.nonces.includes(claim.nonce));
  }

  private view(st: KeyState): KeyView {
    const { result, error, claim } = this.read(st);
    const waiters = [...st.waiters].map((w) => w.minRev);
    const view: KeyView = { lifecycle: this.lifecycle, recorded: recordedRev(result, error), settled: st.settled, waiters, listeners: st.listeners.size };
    if (claim) {
      const mine = this.isMine(st, claim);
      const verdict = mine ? { stale: false, staleAt: Infinity } : this.verdict(st.key, claim);
      view.claim = { replicaId: claim.replicaId, nonce: claim.nonce, rev: claim.rev, mine, stale: verdict.stale, staleAt: verdict.staleAt };
    }
    const a = st.attempt;
    const phase = a?.phase;
    if (a && phase) view.attempt = { rev: a.rev, nonce: a.nonce, phase, forListeners: a.forListeners };
    return view;
  }

  private refresh(st: KeyState): void {
    const snap = this.compute(st);
    if (snap !== st.notified) {
      st.notified = snap;
      for (const listener of [...st.listeners]) {
        try {
          listener();
        } catch (error) {
          queueMicrotask(() => console.error("shared-fetch: subscriber failed", error));
        }
      }
    }
    this.step(st);
  }

  /** The loop: decide, apply, until the decision is to wait. */
  private step(st: KeyState): void {
    for (let i = 0; i < MAX_STEPS; i++) {
      const action = decide(this.view(st));
      this.apply(st, action);
      if (isTerminal(action)) return;
    }
  }

  private apply(st: KeyState, action: Action): void {
    switch (action.type) {
      case "resolve": {
        const { result, error } = this.read(st);
        const recorded = recordedRev(result, error);
        const snap = this.compute(st);
        for (const w of [...st.waiters]) {
          if (!action.all && recorded < w.minRev) continue;
          st.waiters.delete(w);
          w.cleanup();
          w.resolve(snap);
        }
        return;
      }
      case "abort":
        return this.stopAttempt(st, action.reason);
      case "yield":
        st.attempt?.yieldTo(action.to);
        st.attempt = undefined;
        return;
      case "dispatch":
        return st.attempt?.dispatch();
      case "claim":
        return this.claim(st, action.rev, action.from);
      case "wait":
        return this.keys.recheckAt(st, action.until);
      case "await-ready":
        return this.awaitReady();
      case "drop":
        return this.keys.drop(st);
      case "none":
        return;
    }
  }

  private awaitReady(): void {
    if (this.waitingReady || !this.opts.ready) return;
    this.waitingReady = true;
    void this.opts.ready().then(() => {
      this.waitingReady = false;
      if (this.lifecycle !== "starting") return;
      this.lifecycle = "ready";
      for (const st of [...this.keys.all()]) this.refresh(st);
    });
  }

  private claim(st: KeyState, rev: number, takeoverOf?: string): void {
    const job = st.job;
    if (!job) return;
    const attempt = new Attempt(job, rev, st.waiters.size === 0, {
      records: this.opts.records,
      replicaId: this.replicaId,
      browserId: this.opts.browserId(),
      heartbeat: this.heartbeat,
      settleMs: this.opts.settleMs,
      emit: this.opts.emit,
      write: (fn) => this.write(fn),
      batch: (fn) => this.batch.queue(fn),
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
    const record = attempt.claim(takeoverOf);
    this.liveness.seeClaim(st.key, record, Date.now());
  }

  private stopAttempt(st: KeyState, reason: StopReason): void {
    const attempt = st.attempt;
    if (!attempt) return;
    st.attempt = undefined;
    attempt.stop(reason);
  }

  private write(fn: () => void): void {
    this.opts.records.doc.transact(fn, ORIGIN);
  }
}
