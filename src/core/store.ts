import { openDocRecords, type DocRecords } from "./doc-records.ts";
import { ClaimEngine } from "./engine.ts";
import { ORIGIN, type Job } from "./job.ts";
import { abortError } from "./errors.ts";
import type { RetryPolicy } from "./retry.ts";
import { fetchKey } from "./key.ts";
import { inspect } from "./inspector.ts";
import type { PresenceSelf } from "./presence.ts";
import { watchReplicaPresence } from "./replica-presence.ts";
import { fetchJob as createFetchJob } from "./fetch-job.ts";
import { normalizeRequest, type NormalizedRequest } from "./request.ts";
import { Retention } from "./retention.ts";
import type { EnsureOptions, Program, ProgramOptions, ProgramRequest, SharedRequest, Snapshot } from "./types.ts";
import { ProgramWork, validateProgramData } from "./program-work.ts";
import { ProgramLru } from "./program-lru.ts";
import { detectLocks, ReplicaLocks } from "./locks.ts";
import { watchPageLifecycle } from "./page-lifecycle.ts";
import { agreeBrowserId, getBrowserId } from "./browser-id.ts";
import { checkedListener, ensureOptions, resolveStoreOptions, retryOptions, type CreateStoreOptions } from "./store-options.ts";
import { registerInternals } from "./internals.ts";
import { createEmitter } from "./emitter.ts";
import { afterFlush, connectorsOf, docScope, resyncWaits, whenConnectorsSynced, whenDocSynced } from "./connectors.ts";
import { createDevSimulations } from "./dev-simulations.ts";
import { invalidated, keepNewer, trustedAt, type TrustedAt } from "./freshness.ts";
import { settleFor, type Settle } from "./settle-window.ts";
import { DEFAULT_SETTLE_MS } from "./store-options.ts";

export { DEFAULT_LEASE_MS, DEFAULT_PROGRAM_LEASE_MS, DEFAULT_SETTLE_MS, type CreateStoreOptions } from "./store-options.ts";

import type { SharedFetchStoreWithExtras } from "./store-extras.ts";
import type * as Y from "yjs";
export type { SharedFetchStoreExtras, SharedFetchStoreWithExtras } from "./store-extras.ts";

export function createSharedFetchStore(options: CreateStoreOptions): SharedFetchStoreWithExtras {
  const o = resolveStoreOptions(options);
  const { replicaId, identity } = o;
  const events = createEmitter();
  const records = openDocRecords(options.doc, validateProgramData);
  const at = trustedAt([records.results, records.programs, records.errors, records.claims]);
  const lockManager = options.locks === null ? undefined : (options.locks ?? detectLocks());
  let browserId = lockManager ? (options.browserId ?? getBrowserId()) : undefined;
  // What presence publishes, in every awareness the store follows (presence.ts).
  const presenceSelf: PresenceSelf = { replicaId, browserId };
  // The id every tab of this browser agrees on (first visit: tabs opened at once). Claims do not
  // wait for it (a first visit would pay the agreement's lock round trips before every first
  // request): a claim made before it named the tentative id, and is renamed here, within a few ms
  // — long before anyone would need to find its claimant's crash by the lock.
  if (lockManager && options.browserId === undefined && browserId) {
    void agreeBrowserId(lockManager, browserId).then((id) => {
      if (id === browserId || destroyed) return;
      browserId = id;
      presenceSelf.browserId = id;
      presence?.publish();
      const renamed = records.claims
        .entries()
        .filter(([, c]) => c.replicaId === replicaId && c.browserId !== undefined && c.browserId !== id);
      if (renamed.length) write(() => renamed.forEach(([key, c]) => records.claims.set(key, { ...c, browserId: id })));
      engine.recheckClaims();
    });
  }
  // Per key, the unwanted request (its revision) that waits for the tabs' flush, or has waited
  // (`done`: for the one decision the flush wakes, so a later request of the key gets its own).
  const graced = new Map<string, { rev: number; done?: boolean }>();
  // Granted only after the engine exists: a lock grant is asynchronous.
  const onLockReleased = (id: string) => {
    engine.liveness.markReleased(id);
    engine.markClaimantDirty(id);
    presence?.released(id);
    events.changed();
  };
  const locks = lockManager ? new ReplicaLocks(lockManager, replicaId, onLockReleased) : undefined;
  const keyLockScope = options.keyLockScope ?? options.browserId ?? "";
  locks?.hold();
  const settle = (): Settle =>
    settleFor({
      doc: options.doc,
      exactTabs: locks !== undefined,
      fixedMs: options.settleMs === undefined ? undefined : o.settleMs,
      defaultMs: DEFAULT_SETTLE_MS,
      elsewhere: presence ? () => presence.elsewhere(browserId) : undefined,
    });
  // The waits for a sync under way: the store's destroy ends them, and their bound's timer.
  const syncWaits = new Set<() => void>();
  const resync = resyncWaits(options.doc, syncWaits);
  const engine = new ClaimEngine({
    records,
    at,
    replicaId,
    settle,
    // Named per scope, not per agreed browser id: the lock is asked for beside the initial sync,
    // before a first visit's tabs agree on an id. Replicas given browser ids of their own (in-page
    // simulations of several browsers) must not queue behind each other's keys.
    // Let go once the other tabs have what this one wrote under it (sync/tab-flush.ts).
    keyLock: locks
      ? (key, signal) =>
          locks.holdKey(`${keyLockScope}:${docScope(options.doc)}:${key}`, signal).then((release) => () => afterFlush(options.doc, release))
      : undefined,
    emit: events.emit,
    changed: events.changed,
    browserId: () => (locks?.held ? browserId : undefined),
    // The first claim waits for this replica's lock (claims then name its browser) and for the doc's
    // initial sync through its connectors: a claim made before the doc knows what others recorded
    // or claimed is a duplicate waiting to happen (a tab that opens after the result was written).
    ready:
      locks || connectorsOf(options.doc).length > 0
        ? // The initial sync counts as the wait for its connection: a later claim does not wait again.
          () => Promise.all([locks?.ready, whenDocSynced(options.doc, syncWaits), resync()]).then(() => {})
        : undefined,
    resync,
    started: () => docSynced,
    watchClaimant: (claim) => {
      if (!locks || claim.browserId === undefined || claim.browserId !== browserId) return false;
      locks.watch(claim.replicaId);
      return true;
    },
    revived: (id) => locks?.forget(id),
    // Who waits on whose claim travels in presence: it goes with a replica that leaves or dies.
    ...(options.awareness && {
      // Called once the store is made (a decision on a key), when presence is there.
      awaited: (key: string, rev: number, sent: boolean) => {
        if (presence!.awaited(key, rev)) return true;
        if (!sent || presence!.alone()) return false;
        // A wait may be on its way (a tab joined as this one's ask ended): the request goes on
        // until the tabs have answered a flush, which comes behind what they sent before it.
        let g = graced.get(key);
        if (g?.rev !== rev) {
          const mark: { rev: number; done?: boolean } = (g = { rev });
          graced.set(key, mark);
          afterFlush(options.doc, () => {
            if (graced.get(key) !== mark) return;
            mark.done = true;
            engine.recheck([key]);
            // Not taken by that decision (its ask came back): spent all the same.
            queueMicrotask(() => graced.get(key) === mark && graced.delete(key));
          });
        }
        return !g.done || !graced.delete(key);
      },
      waits: (key: string, rev: number | undefined) => presence!.wait(key, rev),
    }),
  });
  const stopLifecycle = watchPageLifecycle({
    suspend: () => {
      engine.suspend();
      locks?.drop();
    },
    resume: () => {
      locks?.hold();
      engine.resume();
    },
  });
  // Asks go into the engine's batch: one transaction with the claims of the same tick.
  const batched = (fn: () => void) => engine.batch.queue(fn);
  const write = (fn: () => void) => records.doc.transact(fn, ORIGIN);
  // Retention tells what the initial sync loads from what replicas write once this one is in sync.
  let docSynced = false;
  // No timeout here (unlike the first claim's wait): a sync that never ends only costs ask writes.
  void whenConnectorsSynced(options.doc).then(() => (docSynced = true));
  const retention = new Retention(
    records,
    o.retentionMs,
    replicaId,
    (key) => engine.isBusy(key),
    batched,
    (keys) => events.emit({ type: "swept", keys }),
    (key) => engine.hasAttempt(key),
    () => docSynced,
  );
  const presence: ReturnType<typeof watchReplicaPresence> | undefined = options.awareness
    ? watchReplicaPresence(options.doc, options.awareness, presenceSelf, engine, events.changed, (id, b, waits) => {
        // A waiter of this browser is watched by its lock, as a claimant is: a crash is known at
        // once, not after its presence's timeout (its waits would keep our request going). One
        // heard from after it was found dead is alive (back from the back/forward cache).
        if (!locks || !waits || b !== browserId) return;
        if (engine.liveness.revive(id)) locks.forget(id);
        locks.watch(id);
      })
    : undefined;
  keepNewer([records.results, records.programs], records.errors, replicaId, batched, () => presence?.present);
  const stopWatchingDoc = watchDoc(records, events.changed);
  // Development simulations for the devtools (crash, pause network); inert until called.
  const dev = createDevSimulations({
    lanes: records.lanes,
    // A page coming back from the back/forward cache must not take the lock again either.
    dropLock: () => {
      stopLifecycle();
      locks?.stop();
    },
    // As a real crash: a sync server sees the socket close and removes the presence at once; the
    // tabs hear nothing, and each tab's copy times out unrenewed (y-protocols' 30 s check).
    dropPresence: () => {
      const awareness = presence?.awareness();
      presence?.stop(true);
      let tabs = false;
      for (const c of connectorsOf(options.doc)) {
        if (c.crossDevice) continue;
        tabs ||= c.awareness === awareness;
        clearInterval((c.awareness as { _checkInterval?: ReturnType<typeof setInterval> } | undefined)?._checkInterval);
      }
      if (!tabs) awareness?.setLocalState(null);
    },
    changed: events.changed,
  });
  const fetchFn = dev.gate(o.fetch);

  const jobDeps = { identity, fetch: fetchFn, maxResultBytes: o.maxResultBytes, records };
  const fetchJob = (req: NormalizedRequest, lease: number, retry?: RetryPolicy): Job => createFetchJob(jobDeps, req, lease, retry);
  const programs = new ProgramWork({ identity, fetch: fetchFn, leaseMs: o.programLeaseMs, records });
  const lru = new ProgramLru({
    records,
    maxPrograms: o.maxPrograms,
    maxBytes: o.maxProgramBytes,
    isBusy: (key) => engine.isBusy(key),
    write,
    onEvicted: (keys) => events.emit({ type: "swept", keys }),
  });
  /** Resolves a program job; the bound is re-checked once this replica lets go of the key. */
  const runProgram = (
    job: Job,
    signal: AbortSignal | undefined,
    mode: "ensure" | "refetch",
    skipInFlight = false,
    maxAgeMs?: number,
  ): Promise<Snapshot<Program>> => {
    lru.touch(job.key);
    retention.touch(job.key);
    const running = engine.ensure(job, signal, mode, maxAgeMs, skipInFlight) as Promise<Snapshot<Program>>;
    running.then(
      () => lru.schedule(),
      () => lru.schedule(),
    );
    return running;
  };

  // Bad input rejects at once and writes nothing; the promise returned is the one created here.
  const guard = <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return fn();
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const keyOf = (req: SharedRequest | string) => fetchKey(identity, normalizeRequest(req));
  const askProgram = (req: ProgramRequest, opts: unknown, mode: "ensure" | "refetch"): Promise<Snapshot<Program>> =>
    guard(() => {
      const { signal, leaseMs, skipInFlight, maxAgeMs } = ensureOptions(opts, o.programLeaseMs, `${mode}Program`);
      const job = programs.job(req, leaseMs, retryOptions(opts));
      if (signal?.aborted) return Promise.reject(abortError(signal.reason));
      // Only a poll's maxAgeMs reads a program's `at`; but one the devtools invalidated is stale
      // for everyone: an ensure re-resolves it, as a refetch does (joining one claimed).
      const stale = mode === "ensure" && invalidated(records.programs.get(job.key), records.errors.get(job.key));
      return runProgram(job, signal, stale ? "refetch" : mode, mode === "refetch" && skipInFlight, maxAgeMs);
    });

  let destroyed = false;
  const store: SharedFetchStoreWithExtras = {
    replicaId,
    identity,
    keyOf,
    ensure(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
      return guard(() => {
        const { signal, leaseMs, maxAgeMs } = ensureOptions(opts, o.leaseMs, "ensure");
        const job = fetchJob(normalizeRequest(req), leaseMs, retryOptions(opts));
        if (signal?.aborted) return Promise.reject(abortError(signal.reason));
        retention.touch(job.key);
        return engine.ensure(job, signal, "ensure", maxAgeMs);
      });
    },
    refetch(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
      return guard(() => {
        const { signal, leaseMs, skipInFlight } = ensureOptions(opts, o.leaseMs, "refetch");
        const job = fetchJob(normalizeRequest(req), leaseMs, retryOptions(opts));
        if (signal?.aborted) return Promise.reject(abortError(signal.reason));
        retention.touch(job.key);
        return engine.ensure(job, signal, "refetch", undefined, skipInFlight);
      });
    },
    resultInfo: (req: SharedRequest | string) => infoOf(at, records.results.get(keyOf(req))),
    programResultInfo: (req: ProgramRequest) => infoOf(at, records.programs.get(programs.keyOf(req))),
    snapshot(req: SharedRequest): Snapshot {
      return engine.snapshot(keyOf(req), "fetch", records.results);
    },
    subscribe(req: SharedRequest, listener: () => void): () => void {
      return engine.subscribe(fetchJob(normalizeRequest(req), o.leaseMs), checkedListener(listener));
    },
    ensureProgram: (req: ProgramRequest, opts?: ProgramOptions) => askProgram(req, opts, "ensure"),
    refetchProgram: (req: ProgramRequest, opts?: ProgramOptions) => askProgram(req, opts, "refetch"),
    programSnapshot(req: ProgramRequest): Snapshot<Program> {
      const key = programs.keyOf(req);
      lru.touch(key);
      return engine.snapshot(key, "program", records.programs) as Snapshot<Program>;
    },
    subscribeProgram(req: ProgramRequest, listener: () => void): () => void {
      const off = engine.subscribe(programs.job(req), checkedListener(listener));
      return () => {
        off();
        lru.schedule();
      };
    },
    programKeyOf: (req: ProgramRequest) => programs.keyOf(req),
    // A listener that is no function would throw on every event, far from the call that gave it.
    onEvent: (listener) => events.onEvent(checkedListener(listener, "onEvent")),
    onInspect: (listener) => events.onChange(checkedListener(listener, "onInspect")),
    inspect: () => inspect({ records, engine, browserId, present: () => presence?.present, settle, waiters: presence?.waiters }),
    claims: () => records.claims.entries(),
    malformed: () => records.malformed(),
    destroy(): void {
      if (destroyed) return;
      destroyed = true;
      lru.stop();
      retention.stop();
      engine.destroy();
      syncWaits.forEach((end) => end());
      locks?.stop();
      stopLifecycle();
      presence?.stop();
      stopWatchingDoc();
      records.destroy();
      events.stop();
    },
  };
  registerInternals(store, { records, engine, dev });
  return store;
}

/**
 * With its `at` as this replica trusts it (trustedAt): TanStack's dataUpdatedAt agrees with the
 * store's freshness. `ahead`: dated in our future when it arrived, so when its request was sent is
 * unknown here, maybe before a set or an invalidation of the app's (react/push.ts).
 */
function infoOf(
  trusted: TrustedAt,
  result: { rev: number; at?: number } | undefined,
): { rev: number; at?: number; ahead?: true } | undefined {
  if (result?.at === undefined) return result && { rev: result.rev };
  const at = trusted(result)!;
  return at < result.at ? { rev: result.rev, at, ahead: true } : { rev: result.rev, at };
}

/**
 * Every change of the doc is something the inspector may show: a record, or garbage that touches
 * none (a root item that is no lane, a shapeless entry), listed as malformed (invariant 14). A
 * transaction that changed nothing is not: a sync server's echo of our own write, a fence's or
 * probe's answer; each would cost an open panel a whole inspection.
 */
function watchDoc(records: DocRecords, changed: () => void): () => void {
  const onTransaction = (tr: Y.Transaction) => tr.changed.size > 0 && changed();
  records.doc.on("afterTransaction", onTransaction);
  return () => records.doc.off("afterTransaction", onTransaction);
}
