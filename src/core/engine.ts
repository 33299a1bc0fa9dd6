import type { DocRecords } from "./doc-records.ts";
import { abortError, isAbortError } from "./errors.ts";
import type { StoreEvent } from "./events.ts";
import { messageOf, type Outcome } from "./fetcher.ts";
import { meetsDemand } from "./freshness.ts";
import { Heartbeat } from "./heartbeat.ts";
import type { WorkKind } from "./key.ts";
import { Liveness } from "./liveness.ts";
import type { RecordMap } from "./lanes.ts";
import type { ClaimRecord, ResultRecord } from "./records.ts";
import { deriveSnapshot, recordedRev, sameSnapshot } from "./snapshot.ts";
import type { Snapshot } from "./types.ts";
import { IDLE_STATES, ORIGIN, randomId, type Job, type KeyState, type LocalWork, type Waiter } from "./job.ts";
import { writeOutcome } from "./writeback.ts";

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

/**
 * The claim engine: decides, per key, whether this replica fetches, waits, or takes over, and
 * records outcomes so that every replica sees truthful pending state (invariants 1–10).
 */
export class ClaimEngine {
  readonly liveness = new Liveness();
  private readonly states = new Map<string, KeyState>();
  private readonly heartbeat: Heartbeat;
  private readonly dirtyKeys = new Set<string>();
  private readonly dirtyClaims = new Set<string>();
  private flushQueued = false;
  private destroyed = false;
  private suspended = false;
  private isReady = false;
  private readyWaiting = false;
  private readonly unobserve: (() => void)[] = [];

  constructor(private readonly opts: EngineOptions) {
    const { records } = opts;
    this.heartbeat = new Heartbeat(records.beats, opts.replicaId, (fn) => this.write(fn));
    // Everything already in the doc is "seen now": a replica arriving after a crash waits one lease.
    const now = Date.now();
    for (const [key, claim] of records.claims.entries()) this.liveness.seeClaim(key, claim, now);
    for (const [id, beat] of records.beats.entries()) this.liveness.seeBeat(id, beat.n, now);
    const onKeys = (keys: Set<string>) => this.markDirty(keys);
    this.unobserve.push(
      records.claims.onChange((keys) => {
        keys.forEach((k) => this.dirtyClaims.add(k));
        this.markDirty(keys);
      }),
      records.results.onChange(onKeys),
      records.programs.onChange(onKeys),
      records.errors.onChange(onKeys),
      records.beats.onChange((ids) => {
        const at = Date.now();
        for (const id of ids) if (this.liveness.seeBeat(id, records.beats.get(id)?.n, at)) this.markClaimantDirty(id);
      }),
    );
  }

  get replicaId(): string {
    return this.opts.replicaId;
  }

  snapshot(key: string, kind: WorkKind, results: RecordMap<ResultRecord>): Snapshot {
    return this.compute(this.state(key, kind, results));
  }

  /** A listener shows the key: it never starts new work, but it finishes abandoned work (see evaluate). */
  subscribe(job: Job, listener: () => void): () => void {
    const st = this.state(job.key, job.kind, job.results);
    st.job ??= job;
    st.listeners.add(listener);
    st.notified = this.compute(st);
    this.evaluate(st);
    return () => {
      st.listeners.delete(listener);
      this.evaluate(st);
    };
  }

  /**
   * `refetch`: wait for a revision newer than what is recorded now (joining one already claimed).
   * `maxAgeMs`: an ensure whose recorded outcome is older than that is treated like a refetch.
   */
  ensure(job: Job, signal: AbortSignal | undefined, mode: "ensure" | "refetch", maxAgeMs?: number): Promise<Snapshot> {
    if (this.destroyed) return Promise.reject(abortError("shared-fetch: the store was destroyed"));
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const st = this.state(job.key, job.kind, job.results);
    st.job = job;
    const { result, error, claim } = this.read(st);
    const recorded = recordedRev(result, error);
    let minRev = 1;
    const tooOld = recorded > 0 && maxAgeMs !== undefined && !meetsDemand(result, error, Date.now(), maxAgeMs);
    if (mode === "ensure" && !tooOld) {
      if (recorded > 0) return Promise.resolve(this.compute(st));
    } else {
      const active = Math.max(claim && claim.rev > recorded ? claim.rev : 0, st.local && st.local.rev > recorded ? st.local.rev : 0);
      minRev = active || recorded + 1;
    }
    return new Promise<Snapshot>((resolve, reject) => {
      const onAbort = () => {
        st.waiters.delete(waiter);
        reject(abortError(signal?.reason));
        this.evaluate(st);
      };
      const waiter: Waiter = { minRev, resolve, reject, cleanup: () => signal?.removeEventListener("abort", onAbort) };
      signal?.addEventListener("abort", onAbort, { once: true });
      st.waiters.add(waiter);
      this.evaluate(st);
    });
  }

  /** Orderly stop: abort local work, release only claims that carry this replica's id (invariant 5). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    const { claims } = this.opts.records;
    for (const st of this.states.values()) {
      this.abortLocal(st, "destroyed");
      if (st.timer !== undefined) clearTimeout(st.timer);
      for (const w of st.waiters) {
        w.cleanup();
        w.reject(abortError("shared-fetch: the store was destroyed"));
      }
      st.waiters.clear();
    }
    this.write(() => {
      for (const [key, claim] of claims.entries()) if (claim.replicaId === this.replicaId) claims.delete(key);
    });
    this.heartbeat.stop();
    this.unobserve.forEach((off) => off());
  }

  /**
   * A page going into the back/forward cache (or frozen) cannot run its requests: abort them and
   * release its claims so others take over at once; waiters stay and re-decide on resume.
   */
  suspend(): void {
    if (this.destroyed || this.suspended) return;
    this.suspended = true;
    for (const st of this.states.values()) this.abortLocal(st, "hidden");
  }

  resume(): void {
    if (this.destroyed || !this.suspended) return;
    this.suspended = false;
    this.isReady = false; // the lock was let go while suspended: wait for it again
    for (const st of [...this.states.values()]) this.refresh(st);
  }

  /** Re-check keys whose claimant was seen to die or to come back (presence, Web Locks). */
  markClaimantDirty(replicaId: string): void {
    const keys = new Set<string>();
    for (const [key, claim] of this.opts.records.claims.entries()) if (claim.replicaId === replicaId) keys.add(key);
    this.markDirty(keys);
  }

  /** True while this replica has waiters, listeners or work for the key (retention must keep it). */
  isBusy(key: string): boolean {
    const st = this.states.get(key);
    return !!st && (st.waiters.size > 0 || st.listeners.size > 0 || st.local !== undefined);
  }

  private state(key: string, kind: WorkKind, results: RecordMap<ResultRecord>): KeyState {
    let st = this.states.get(key);
    if (!st) {
      st = { key, kind, results, waiters: new Set(), listeners: new Set() };
      this.states.set(key, st);
      if (this.states.size > IDLE_STATES) this.trimIdle();
    }
    return st;
  }

  /** States made by snapshot() alone keep their snapshot's identity for a while, not forever. */
  private trimIdle(): void {
    let excess = this.states.size - IDLE_STATES / 2;
    for (const st of this.states.values()) {
      if (excess <= 0) break;
      if (st.waiters.size || st.listeners.size || st.local) continue;
      if (st.timer !== undefined) clearTimeout(st.timer);
      this.states.delete(st.key);
      excess--;
    }
  }

  private maybeDrop(st: KeyState): void {
    if (st.waiters.size || st.listeners.size || st.local) return;
    if (st.timer !== undefined) clearTimeout(st.timer);
    this.states.delete(st.key);
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
      localRev: st.local?.rev,
      replicaId: this.replicaId,
      isStale: (c) => this.liveness.isStale(st.key, c, now, this.exact(c)),
    });
    if (!sameSnapshot(st.snapshot, next)) st.snapshot = next;
    return st.snapshot as Snapshot;
  }

  private exact(claim: ClaimRecord): boolean {
    return this.opts.watchClaimant?.(claim) ?? false;
  }

  private markDirty(keys: Iterable<string>): void {
    for (const k of keys) this.dirtyKeys.add(k);
    if (this.flushQueued) return;
    this.flushQueued = true;
    // Observers run inside the writer's transaction: decide and write only after it (pitfall 1).
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.destroyed) return;
    const now = Date.now();
    const { claims } = this.opts.records;
    for (const key of this.dirtyClaims) this.liveness.seeClaim(key, claims.get(key), now);
    this.dirtyClaims.clear();
    const keys = [...this.dirtyKeys];
    this.dirtyKeys.clear();
    for (const key of keys) {
      const st = this.states.get(key);
      if (st) this.refresh(st);
    }
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
    this.evaluate(st);
  }

  /** The decision: resolve waiters, wait on a live claim, take over a stale one, or claim. */
  private evaluate(st: KeyState): void {
    if (this.destroyed || this.suspended) return;
    const { result, error } = this.read(st);
    const recorded = recordedRev(result, error);
    if (st.waiters.size) {
      const snap = this.compute(st);
      for (const w of [...st.waiters]) {
        if (recorded < w.minRev) continue;
        st.waiters.delete(w);
        w.cleanup();
        w.resolve(snap);
      }
    }
    // A revision at or above ours is recorded (another replica came home first): our copy is moot.
    if (st.local && st.local.rev <= recorded) this.abortLocal(st, "no-waiters");
    // When every waiter of this replica has gone, its request is aborted and the claim released;
    // work taken over for listeners alone lives as long as someone shows the key.
    if (st.local && st.waiters.size === 0 && !(st.local.forListeners && st.listeners.size > 0)) this.abortLocal(st, "no-waiters");
    if (st.local) return; // our own work: never judged by the clock (invariant 2)
    const interested = st.waiters.size > 0 || st.listeners.size > 0;
    if (!interested) {
      this.maybeDrop(st);
      return;
    }
    // Read after the aborts above: a released claim of ours is no longer there.
    const claim = this.opts.records.claims.get(st.key);
    const active = claim && claim.rev > recorded ? claim : undefined;
    if (active && active.replicaId !== this.replicaId) {
      if (!this.liveness.isStale(st.key, active, Date.now(), this.exact(active))) {
        this.armRecheck(st, active, recorded);
        return;
      }
      // Abandoned work is finished by anyone who waits for it or shows it: a spinner whose
      // claimant died must resolve. Takeover keeps the revision (invariants 4, 12).
      this.claim(st, active.rev, active.replicaId);
      return;
    }
    if (st.waiters.size === 0) {
      // Showing a key never starts new work, but our own claim left without local work
      // (e.g. released on pagehide, then the page came back) is finished like an abandoned one.
      if (active) this.claim(st, active.rev);
      return;
    }
    const want = Math.max(...[...st.waiters].map((w) => w.minRev));
    this.claim(st, active ? active.rev : Math.max(want, recorded + 1));
  }

  /** Invariant 9: a live-looking foreign claim gets a re-check at the moment it would go stale. */
  private armRecheck(st: KeyState, claim: ClaimRecord | undefined, recorded: number): void {
    if (!claim || claim.rev <= recorded || claim.replicaId === this.replicaId) return;
    if (st.waiters.size === 0 && st.listeners.size === 0) return;
    const now = Date.now();
    const at = this.liveness.staleAt(st.key, claim, now, this.exact(claim));
    if (at <= now || at === Infinity) return;
    if (st.timer !== undefined && (st.timerAt ?? Infinity) <= at) return;
    if (st.timer !== undefined) clearTimeout(st.timer);
    st.timerAt = at;
    st.timer = setTimeout(() => {
      st.timer = undefined;
      st.timerAt = undefined;
      this.refresh(st);
    }, at - now);
  }

  private claim(st: KeyState, rev: number, takeoverOf?: string): void {
    const job = st.job;
    if (!job) return;
    if (this.opts.ready && !this.isReady) {
      if (!this.readyWaiting) {
        this.readyWaiting = true;
        void this.opts.ready().then(() => {
          this.isReady = true;
          this.readyWaiting = false;
          for (const other of [...this.states.values()]) this.refresh(other);
        });
      }
      return;
    }
    const local: LocalWork = { rev, nonce: randomId(), controller: new AbortController(), phase: "settling", forListeners: st.waiters.size === 0 };
    st.local = local;
    const record: ClaimRecord = { replicaId: this.replicaId, nonce: local.nonce, rev, leaseMs: job.leaseMs, label: job.label };
    const browserId = this.opts.browserId();
    if (browserId) record.browserId = browserId;
    // One write replaces whatever stood there: never through "no claim" (invariant 4).
    this.write(() => this.opts.records.claims.set(st.key, record));
    this.liveness.seeClaim(st.key, record, Date.now());
    this.opts.emit({ type: "claimed", kind: st.kind, key: st.key, label: job.label, rev, ...(takeoverOf ? { takeoverOf } : {}) });
    const afterSettle = () => this.afterSettle(st, local, job);
    if (this.opts.settleMs > 0) local.settleTimer = setTimeout(afterSettle, this.opts.settleMs);
    else queueMicrotask(afterSettle);
  }

  /** Yjs has no compare-and-set: after the sync round-trip, yield if another claim won. */
  private afterSettle(st: KeyState, local: LocalWork, job: Job): void {
    local.settleTimer = undefined;
    if (st.local !== local || local.controller.signal.aborted || this.destroyed) return;
    const current = this.opts.records.claims.get(st.key);
    if (current && current.nonce !== local.nonce && current.replicaId !== this.replicaId && current.rev >= local.rev) {
      st.local = undefined;
      this.opts.emit({ type: "yielded", kind: st.kind, key: st.key, rev: local.rev, to: current.replicaId });
      this.evaluate(st);
      return;
    }
    this.dispatch(st, local, job);
  }

  private dispatch(st: KeyState, local: LocalWork, job: Job): void {
    local.phase = "running";
    this.heartbeat.add(local, job.leaseMs);
    this.opts.emit({ type: "dispatched", kind: st.kind, key: st.key, label: job.label, rev: local.rev });
    let run: Promise<Outcome>;
    try {
      run = job.run({ signal: local.controller.signal, rev: local.rev, idempotencyKey: `${st.key}.${local.rev}` });
    } catch (error) {
      run = Promise.reject(error);
    }
    run.then(
      (outcome) => this.finish(st, local, job, outcome),
      (error: unknown) =>
        this.finish(st, local, job, isAbortError(error) || local.controller.signal.aborted ? null : { ok: false, error: { message: messageOf(error) } }),
    );
  }

  /** Writebacks are gated on key and revision, never on the claim (invariants 6 and 7). */
  private finish(st: KeyState, local: LocalWork, job: Job, outcome: Outcome | null): void {
    this.heartbeat.remove(local);
    if (st.local === local) st.local = undefined;
    // An aborted request writes nothing; its claim was released when it was aborted.
    if (outcome === null || local.controller.signal.aborted || this.destroyed) return;
    const rev = local.rev;
    let written = false;
    this.write(() => {
      written = writeOutcome(this.opts.records, st.results, { key: st.key, rev, label: job.label, outcome });
      // Release our claim in the same transaction: no observer sees it gone before the outcome.
      const { claims } = this.opts.records;
      const claim = claims.get(st.key);
      if (claim && claim.replicaId === this.replicaId && claim.nonce === local.nonce) claims.delete(st.key);
    });
    this.opts.emit({ type: "settled", kind: st.kind, key: st.key, rev, outcome: outcome.ok ? "result" : "error", written });
    this.markDirty([st.key]);
  }

  private abortLocal(st: KeyState, reason: "no-waiters" | "destroyed" | "hidden"): void {
    const local = st.local;
    if (!local) return;
    st.local = undefined;
    if (local.settleTimer !== undefined) clearTimeout(local.settleTimer);
    local.controller.abort(abortError(`shared-fetch: aborted (${reason})`));
    this.heartbeat.remove(local);
    this.opts.emit({ type: "aborted", kind: st.kind, key: st.key, rev: local.rev, reason });
    const { claims } = this.opts.records;
    const claim = claims.get(st.key);
    if (claim && claim.replicaId === this.replicaId && claim.nonce === local.nonce) {
      // Nobody here wants the work any more: hand it back (idle is the truth). A page going away
      // still leaves work others want: mark its claim abandoned, so whoever shows the key takes
      // it over at once by rewriting it — never through "no claim" (invariant 4).
      if (reason === "hidden") this.write(() => claims.set(st.key, { ...claim, abandoned: true }));
      else this.write(() => claims.delete(st.key));
      this.opts.emit({ type: "released", kind: st.kind, key: st.key, rev: local.rev });
    }
  }

  private write(fn: () => void): void {
    this.opts.records.doc.transact(fn, ORIGIN);
  }
}
