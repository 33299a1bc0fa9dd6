import { openDocRecords, watchDoc } from "./doc-records.ts";
import { ClaimEngine } from "./engine.ts";
import { ORIGIN, type Job } from "./job.ts";
import { abortError } from "./errors.ts";
import type { RetryPolicy } from "./retry.ts";
import { fetchKey } from "./key.ts";
import { inspect } from "./inspector.ts";
import type { PresenceSelf } from "./presence.ts";
import { watchReplicaPresence } from "./replica-presence.ts";
import { presenceWaits } from "./presence-waits.ts";
import { fetchJob as createFetchJob } from "./fetch-job.ts";
import { normalizeRequest, type NormalizedRequest } from "./request.ts";
import { Retention } from "./retention.ts";
import type { EnsureOptions, Program, ProgramOptions, ProgramRequest, SharedRequest, Snapshot } from "./types.ts";
import { validateProgramData } from "./program-work.ts";
import { programAsks } from "./program-asks.ts";
import { detectLocks, ReplicaLocks } from "./locks.ts";
import { watchPageLifecycle } from "./page-lifecycle.ts";
import { agreeBrowserId, getBrowserId } from "./browser-id.ts";
import { checkedListener, ensureOptions, guard, resolveStoreOptions, retryOptions, type CreateStoreOptions } from "./store-options.ts";
import { registerInternals } from "./internals.ts";
import { createEmitter } from "./emitter.ts";
import { afterFlush, connectorsOf, docScope, resyncWaits, whenConnectorsSynced, whenDocSynced } from "./connectors.ts";
import { crashPresence, createDevSimulations } from "./dev-simulations.ts";
import { keepNewer, resultInfo, trustedAt } from "./freshness.ts";
import { settleFor, type Settle } from "./settle-window.ts";
import { DEFAULT_SETTLE_MS } from "./store-options.ts";

export { DEFAULT_LEASE_MS, DEFAULT_PROGRAM_LEASE_MS, DEFAULT_SETTLE_MS, type CreateStoreOptions } from "./store-options.ts";

import type { SharedFetchStoreWithExtras } from "./store-extras.ts";
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
  // Granted only after the engine exists: a lock grant is asynchronous.
  const onLockReleased = (id: string, refused?: boolean) => {
    if (!refused) {
      engine.liveness.markReleased(id);
      presence?.released(id);
    }
    engine.markClaimantDirty(id);
    events.changed();
  };
  const locks = lockManager ? new ReplicaLocks(lockManager, replicaId, onLockReleased) : undefined;
  const keyLockScope = options.keyLockScope ?? options.browserId ?? "";
  locks?.hold();
  const settle = (): Settle =>
    settleFor({
      doc: options.doc,
      exactTabs: locks !== undefined && !locks.refused,
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
      return locks.watch(claim.replicaId);
    },
    revived: (id) => locks?.forget(id),
    // Who waits on whose claim travels in presence: it goes with a replica that leaves or dies.
    // Called once the store is made (a decision on a key), when presence is there.
    ...(options.awareness &&
      presenceWaits(
        options.doc,
        () => presence!,
        (keys) => engine.recheck(keys),
      )),
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
    dropPresence: () => crashPresence(options.doc, presence),
    changed: events.changed,
  });
  const fetchFn = dev.gate(o.fetch);

  const jobDeps = { identity, fetch: fetchFn, maxResultBytes: o.maxResultBytes, records };
  const fetchJob = (req: NormalizedRequest, lease: number, retry?: RetryPolicy): Job => createFetchJob(jobDeps, req, lease, retry);
  const { programs, lru, askProgram } = programAsks(o, fetchFn, records, engine, retention, write, events.emit);
  const keyOf = (req: SharedRequest | string) => fetchKey(identity, normalizeRequest(req));
  let destroyed = false;
  const store: SharedFetchStoreWithExtras = {
    replicaId,
    identity,
    keyOf,
    ensure(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
      return guard(() => {
        const { signal, leaseMs, maxAgeMs, askedAt } = ensureOptions(opts, o.leaseMs, "ensure");
        const job = fetchJob(normalizeRequest(req), leaseMs, retryOptions(opts));
        if (signal?.aborted) return Promise.reject(abortError(signal.reason));
        retention.touch(job.key);
        return engine.ensure(job, signal, "ensure", maxAgeMs, false, askedAt);
      });
    },
    refetch(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
      return guard(() => {
        const { signal, leaseMs, skipInFlight, askedAt } = ensureOptions(opts, o.leaseMs, "refetch");
        const job = fetchJob(normalizeRequest(req), leaseMs, retryOptions(opts));
        if (signal?.aborted) return Promise.reject(abortError(signal.reason));
        retention.touch(job.key);
        return engine.ensure(job, signal, "refetch", undefined, skipInFlight, askedAt);
      });
    },
    resultInfo: (req: SharedRequest | string) => resultInfo(at, records.results.get(keyOf(req))),
    programResultInfo: (req: ProgramRequest) => resultInfo(at, records.programs.get(programs.keyOf(req))),
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
    inspect: () => inspect({ records, engine, browserId, present: () => presence?.present, settle, waiters: presence?.waiters, locks }),
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
