import { openDocRecords, type DocRecords } from "./doc-records.ts";
import { ClaimEngine } from "./engine.ts";
import { ORIGIN, randomId, type Job } from "./job.ts";
import { SharedFetchInputError, abortError, describe } from "./errors.ts";
import type { StoreEvent, StoreEventListener } from "./events.ts";
import { performFetch } from "./fetcher.ts";
import { NO_RETRY, withRetries, type RetryPolicy } from "./retry.ts";
import { fetchKey } from "./key.ts";
import { watchPresence } from "./presence.ts";
import type { MalformedRecord } from "./lanes.ts";
import { normalizeRequest, requestLabel, type NormalizedRequest } from "./request.ts";
import { DEFAULT_RETENTION_MS, Retention } from "./retention.ts";
import type { ClaimRecord } from "./records.ts";
import type { EnsureOptions, Program, ProgramRequest, SharedFetchStore, SharedFetchStoreOptions, SharedRequest, Snapshot } from "./types.ts";
import { ProgramWork, validateProgramData } from "./program-work.ts";
import { boundOption, DEFAULT_MAX_PROGRAM_BYTES, DEFAULT_MAX_PROGRAMS, ProgramLru } from "./program-lru.ts";
import { detectLocks, ReplicaLocks, type LockManagerLike } from "./locks.ts";
import { watchPageLifecycle } from "./page-lifecycle.ts";
import { getBrowserId } from "../sync/browser-id.ts";

export const DEFAULT_LEASE_MS = 5000;
export const DEFAULT_PROGRAM_LEASE_MS = 10000;
/**
 * Default settle window. Two devices that claim one key before they sync both believe they won;
 * the doc keeps one claim once they do, and the loser yields at the end of this window. It must
 * cover a claim's trip from one device through the sync server to the other: measured here
 * between two chromium contexts through y-websocket on loopback, 20–100 ms on a loaded 2-core
 * machine (bench/browser.ts; with 50 ms, 5 of 10 simultaneously booting pairs both fetched).
 * Tabs of one browser sync through BroadcastChannel in about a millisecond. The window costs a
 * first fetch its length; a duplicate that slips through is harmless (invariants 6, 7, 12).
 */
export const DEFAULT_SETTLE_MS = 100;

export type CreateStoreOptions = SharedFetchStoreOptions & {
  /** Re-read window after claiming, before dispatching (see DEFAULT_SETTLE_MS). */
  settleMs?: number;
  /** Records nobody asked for within this window are removed. Default 24 h. */
  retentionMs?: number;
  /** Web Locks (default `navigator.locks` when present; `null` turns them off). */
  locks?: LockManagerLike | null;
  /** Same-browser identity for Web Locks; default: a random id persisted per origin. */
  browserId?: string;
  /** Stored programs this replica used, at most (least recently used evicted first). Default 50. */
  maxPrograms?: number;
  /** Their total size in UTF-8 bytes, at most. Default 50 MiB. */
  maxProgramBytes?: number;
};

/** Extras beyond the contract: the devtools panel and tests read these. */
export interface SharedFetchStoreExtras {
  readonly identity: string;
  /** The key a request is coordinated under (hash of identity and inputs). */
  keyOf(req: SharedRequest | string): string;
  onEvent(listener: StoreEventListener): () => void;
  /** Claims currently in the doc, every replica's. */
  claims(): [string, ClaimRecord][];
  malformed(): MalformedRecord[];
  readonly records: DocRecords;
  /**
   * The recorded result's revision and `at` (when it was asked for, on its writer's clock, ms
   * since the epoch; absent in records that predate ages, see freshness.ts); undefined when none.
   */
  resultInfo(req: SharedRequest | string): { rev: number; at?: number } | undefined;
  /** The key a program request is coordinated under (identity, entry URL, compile flag). */
  programKeyOf(req: ProgramRequest): string;
  /** Like `refetch`: resolves the program again (joining a re-resolution already claimed). */
  refetchProgram(req: ProgramRequest): Promise<Snapshot<Program>>;
}

export type SharedFetchStoreWithExtras = SharedFetchStore & SharedFetchStoreExtras;

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new SharedFetchInputError(`shared-fetch: ${name} must be a ${allowZero ? "non-negative" : "positive"} number of ms, got ${describe(value)}`);
  }
  return value;
}

export function createSharedFetchStore(options: CreateStoreOptions): SharedFetchStoreWithExtras {
  if (!options || typeof options !== "object" || !options.doc || typeof options.doc.getArray !== "function") {
    throw new SharedFetchInputError(`shared-fetch: createSharedFetchStore needs { doc: Y.Doc }, got ${describe(options)}`);
  }
  const replicaId = options.replicaId ?? randomId();
  if (typeof replicaId !== "string" || replicaId.length === 0 || replicaId.length > 200) {
    throw new SharedFetchInputError(`shared-fetch: replicaId must be a non-empty string, got ${describe(replicaId)}`);
  }
  const identity = options.identity ?? "anonymous";
  if (typeof identity !== "string") throw new SharedFetchInputError(`shared-fetch: identity must be a string, got ${describe(identity)}`);
  const fetchFn = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof fetchFn !== "function") throw new SharedFetchInputError("shared-fetch: no fetch function: pass options.fetch");
  const leaseMs = positive("leaseMs", options.leaseMs, DEFAULT_LEASE_MS);
  const programLeaseMs = positive("programLeaseMs", options.programLeaseMs, DEFAULT_PROGRAM_LEASE_MS);
  const settleMs = positive("settleMs", options.settleMs, DEFAULT_SETTLE_MS, true);
  const retentionMs = positive("retentionMs", options.retentionMs, DEFAULT_RETENTION_MS);
  const maxPrograms = boundOption("maxPrograms", options.maxPrograms, DEFAULT_MAX_PROGRAMS, true);
  const maxProgramBytes = boundOption("maxProgramBytes", options.maxProgramBytes, DEFAULT_MAX_PROGRAM_BYTES, false);

  const listeners = new Set<StoreEventListener>();
  const emit = (event: StoreEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        queueMicrotask(() => console.error("shared-fetch: event listener failed", error));
      }
    }
  };
  const records = openDocRecords(options.doc, validateProgramData);
  const lockManager = options.locks === null ? undefined : (options.locks ?? detectLocks());
  const browserId = lockManager ? (options.browserId ?? getBrowserId()) : undefined;
  // Granted only after the engine exists: a lock grant is asynchronous.
  const onLockReleased = (id: string) => {
    engine.liveness.markReleased(id);
    engine.markClaimantDirty(id);
  };
  const locks = lockManager ? new ReplicaLocks(lockManager, replicaId, onLockReleased) : undefined;
  locks?.hold();
  const engine = new ClaimEngine({
    records,
    replicaId,
    settleMs,
    emit,
    browserId: () => (locks?.held ? browserId : undefined),
    ready: locks ? () => locks.ready : undefined,
    watchClaimant: (claim) => {
      if (!locks || claim.browserId === undefined || claim.browserId !== browserId) return false;
      locks.watch(claim.replicaId);
      return true;
    },
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
  const write = (fn: () => void) => records.doc.transact(fn, ORIGIN);
  const retention = new Retention(
    records,
    retentionMs,
    replicaId,
    (key) => engine.isBusy(key),
    write,
    (keys) => emit({ type: "swept", keys }),
  );
  const stopPresence = options.awareness
    ? watchPresence(options.awareness, { replicaId, browserId }, {
        gone: (id) => {
          engine.liveness.markGone(id);
          engine.markClaimantDirty(id);
        },
        present: (id) => engine.liveness.markPresent(id),
      })
    : () => {};

  const fetchJob = (req: NormalizedRequest, lease: number, retry: RetryPolicy = NO_RETRY): Job => {
    // When this replica asked for the work: the data is read from the host no earlier (freshness.ts).
    const at = Date.now();
    return {
      kind: "fetch",
      key: fetchKey(identity, req),
      label: requestLabel(req),
      leaseMs: lease,
      results: records.results,
      run: async ({ signal, idempotencyKey }) => ({ ...(await withRetries(() => performFetch(fetchFn, req, { signal, idempotencyKey }), retry, signal)), at }),
    };
  };
  const maxAge = (value: number | undefined) => (value === Infinity ? value : value === undefined ? undefined : positive("maxAgeMs", value, 0, true));
  const programs = new ProgramWork({ identity, fetch: fetchFn, leaseMs: programLeaseMs, records });
  const lru = new ProgramLru({
    records,
    maxPrograms,
    maxBytes: maxProgramBytes,
    isBusy: (key) => engine.isBusy(key),
    write,
    onEvicted: (keys) => emit({ type: "swept", keys }),
  });
  /** Resolves a program job; the bound is re-checked once this replica lets go of the key. */
  const runProgram = (job: Job, signal: AbortSignal | undefined, mode: "ensure" | "refetch"): Promise<Snapshot<Program>> => {
    lru.touch(job.key);
    retention.touch(job.key);
    const running = engine.ensure(job, signal, mode) as Promise<Snapshot<Program>>;
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

  let destroyed = false;
  const store: SharedFetchStoreWithExtras = {
    replicaId,
    identity,
    records,
    keyOf,
    ensure(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
      return guard(() => {
        const lease = positive("leaseMs", opts?.leaseMs, leaseMs);
        const maxAgeMs = maxAge(opts?.maxAgeMs);
        const job = fetchJob(normalizeRequest(req), lease, opts?.retry);
        if (opts?.signal?.aborted) return Promise.reject(abortError(opts.signal.reason));
        retention.touch(job.key);
        return engine.ensure(job, opts?.signal, "ensure", maxAgeMs);
      });
    },
    refetch(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot> {
      return guard(() => {
        const job = fetchJob(normalizeRequest(req), positive("leaseMs", opts?.leaseMs, leaseMs), opts?.retry);
        if (opts?.signal?.aborted) return Promise.reject(abortError(opts.signal.reason));
        retention.touch(job.key);
        return engine.ensure(job, opts?.signal, "refetch");
      });
    },
    resultInfo(req: SharedRequest | string) {
      const result = records.results.get(keyOf(req));
      return result && (result.at === undefined ? { rev: result.rev } : { rev: result.rev, at: result.at });
    },
    snapshot(req: SharedRequest): Snapshot {
      return engine.snapshot(keyOf(req), "fetch", records.results);
    },
    subscribe(req: SharedRequest, listener: () => void): () => void {
      return engine.subscribe(fetchJob(normalizeRequest(req), leaseMs), listener);
    },
    ensureProgram(req: ProgramRequest, opts?: { signal?: AbortSignal }): Promise<Snapshot<Program>> {
      return guard(() => {
        const job = programs.job(req);
        if (opts?.signal?.aborted) return Promise.reject(abortError(opts.signal.reason));
        return runProgram(job, opts?.signal, "ensure");
      });
    },
    refetchProgram(req: ProgramRequest): Promise<Snapshot<Program>> {
      return guard(() => runProgram(programs.job(req), undefined, "refetch"));
    },
    programSnapshot(req: ProgramRequest): Snapshot<Program> {
      const key = programs.keyOf(req);
      lru.touch(key);
      return engine.snapshot(key, "program", records.programs) as Snapshot<Program>;
    },
    subscribeProgram(req: ProgramRequest, listener: () => void): () => void {
      const off = engine.subscribe(programs.job(req), listener);
      return () => {
        off();
        lru.schedule();
      };
    },
    programKeyOf: (req: ProgramRequest) => programs.keyOf(req),
    onEvent(listener: StoreEventListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    claims: () => records.claims.entries(),
    malformed: () => records.malformed(),
    destroy(): void {
      if (destroyed) return;
      destroyed = true;
      lru.stop();
      retention.stop();
      engine.destroy();
      locks?.stop();
      stopLifecycle();
      stopPresence();
      records.destroy();
      listeners.clear();
    },
  };
  return store;
}
