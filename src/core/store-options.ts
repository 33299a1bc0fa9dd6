import { describe, kindOf, SharedFetchInputError, shownValue } from "./errors.ts";
import { randomId } from "./job.ts";
import { MAX_OBSERVED_LEASE_MS } from "./liveness.ts";
import type { LockManagerLike } from "./locks.ts";
import { numberOption, warnUnknownOptions } from "./options.ts";
import { isId } from "./request.ts";
import { DEFAULT_MAX_RESULT_BYTES } from "./fetcher.ts";
import { DEFAULT_RETENTION_MS } from "./retention.ts";
import { resolveRetry, type RetryPolicy } from "./retry.ts";
import type { EnsureOptions, SharedFetchStoreOptions } from "./types.ts";

export const DEFAULT_LEASE_MS = 5000;
export const DEFAULT_PROGRAM_LEASE_MS = 10000;
export const DEFAULT_MAX_PROGRAMS = 50;
export const DEFAULT_MAX_PROGRAM_BYTES = 50 * 1024 * 1024;
/**
 * Default settle window. Two devices that claim one key before they sync both believe they won;
 * the doc keeps one claim once they do, and the loser yields at the end of this window. It must
 * cover a claim's trip from one device through the sync server to the other: measured here
 * between two chromium contexts through y-websocket on loopback, 20–100 ms on a loaded 2-core
 * machine (bench/browser.ts; with 50 ms, 5 of 10 simultaneously booting pairs both fetched).
 * Tabs of one browser sync through BroadcastChannel in about a millisecond. The window costs a
 * first fetch its length; a duplicate that slips through is harmless (invariants 6, 7, 12). It is
 * not waited where nothing can race (settle-window.ts): between tabs (Web Locks), on a doc
 * nothing syncs, by a replica long alone in sync. Across devices, measured trips size it, and
 * until then a quicker initial sync shortens it.
 */
export const DEFAULT_SETTLE_MS = 100;
/** A settle window beyond this is a mistake, not a trade-off: every first fetch would wait it. */
const MAX_SETTLE_MS = 60_000;

export type CreateStoreOptions = SharedFetchStoreOptions & {
  /** Re-read window after claiming, before dispatching (see DEFAULT_SETTLE_MS). */
  settleMs?: number | undefined;
  /** Records nobody asked for within this window are removed. Default 24 h. */
  retentionMs?: number | undefined;
  /** Web Locks (default `navigator.locks` when present; `null` turns them off). */
  locks?: LockManagerLike | null | undefined;
  /** Same-browser identity for Web Locks; default: a random id persisted per origin. */
  browserId?: string | undefined;
  /**
   * Replicas that share a lock manager and this scope arbitrate each key by its Web Lock. Default:
   * the `browserId` given, else one scope for every replica of the lock manager (the browser). A
   * replica given its browser's real id (the SharedWorker) passes "" to share the tabs' scope.
   */
  keyLockScope?: string | undefined;
  /** Stored programs this replica used, at most (least recently used evicted first). Default 50. */
  maxPrograms?: number | undefined;
  /** Their total size in UTF-8 bytes, at most. Default 50 MiB. */
  maxProgramBytes?: number | undefined;
  /**
   * A response body larger than this (UTF-8 bytes) is recorded as an error ("result cannot be
   * shared: …") instead of being written into the doc every replica receives. Default 1 MiB
   * (DEFAULT_MAX_RESULT_BYTES).
   */
  maxResultBytes?: number | undefined;
};

/** A lease is checked where it is given: observers would cap a longer one (MAX_OBSERVED_LEASE_MS). */
export function leaseOption(name: string, value: unknown, fallback: number): number {
  return numberOption(name, value, fallback, { max: MAX_OBSERVED_LEASE_MS });
}

/** Every option createSharedFetchStore reads (the type makes a new one a compile error until listed). */
const STORE_OPTIONS: Record<keyof CreateStoreOptions, 0> = {
  doc: 0,
  replicaId: 0,
  identity: 0,
  fetch: 0,
  leaseMs: 0,
  programLeaseMs: 0,
  awareness: 0,
  settleMs: 0,
  retentionMs: 0,
  locks: 0,
  browserId: 0,
  keyLockScope: 0,
  maxPrograms: 0,
  maxProgramBytes: 0,
  maxResultBytes: 0,
};

export type ResolvedStoreOptions = {
  replicaId: string;
  identity: string;
  fetch: typeof fetch;
  leaseMs: number;
  programLeaseMs: number;
  settleMs: number;
  retentionMs: number;
  maxPrograms: number;
  maxProgramBytes: number;
  maxResultBytes: number;
};

export function resolveStoreOptions(options: CreateStoreOptions): ResolvedStoreOptions {
  if (!options || typeof options !== "object" || !options.doc || typeof options.doc.getArray !== "function") {
    // The options may hold an identity or a fetch that closes over a token: only the doc is named.
    // A Y.Doc given for the options (`createSharedFetchStore(doc)`) is named as one.
    const got =
      options && typeof options === "object"
        ? typeof (options as { getArray?: unknown }).getArray === "function"
          ? "the Y.Doc itself: pass { doc }"
          : `options whose doc is ${options.doc === undefined || options.doc === null ? String(options.doc) : "not a Y.Doc"}`
        : describe(options);
    throw new SharedFetchInputError(`shared-fetch: createSharedFetchStore needs { doc: Y.Doc }, got ${got}`);
  }
  // Not before: a Y.Doc given as the options (no `doc`) would be warned of key by key.
  warnUnknownOptions("createSharedFetchStore", options, STORE_OPTIONS);
  const replicaId = options.replicaId ?? randomId();
  if (!isId(replicaId)) {
    throw new SharedFetchInputError(`shared-fetch: replicaId must be a non-empty string, got ${describe(replicaId)}`);
  }
  const identity = options.identity ?? "anonymous";
  if (typeof identity !== "string") throw new SharedFetchInputError(`shared-fetch: identity must be a string, got ${shownValue(identity)}`);
  if (options.keyLockScope !== undefined && typeof options.keyLockScope !== "string")
    throw new SharedFetchInputError(`shared-fetch: keyLockScope must be a string, got ${describe(options.keyLockScope)}`);
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    throw new SharedFetchInputError(`shared-fetch: fetch must be a function (typeof fetch) when given, got ${kindOf(options.fetch)}`);
  const fetchFn = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof fetchFn !== "function") throw new SharedFetchInputError("shared-fetch: no fetch function here: pass options.fetch");
  // Checked before the store attaches anything (an observer on the doc, its Web Lock, listeners):
  // a refused store must leave nothing behind.
  const awarenessProblem = lacking(options.awareness, ["getStates", "getLocalState", "setLocalStateField", "on", "off"]);
  if (awarenessProblem)
    throw new SharedFetchInputError(
      `shared-fetch: awareness must be a y-protocols Awareness (as connectTabs and connectPeers return) when given, got ${
        // `{ awareness: tabs }`, the connection itself, lacks getStates(): say what to pass instead.
        (options.awareness as { awareness?: unknown } | null)?.awareness
          ? "the connection from connectTabs/connectPeers; pass its `.awareness`"
          : awarenessProblem
      }`,
    );
  checkLocks(options.locks);
  if (options.browserId !== undefined && !isId(options.browserId))
    throw new SharedFetchInputError(`shared-fetch: browserId must be a non-empty string when given, got ${describe(options.browserId)}`);
  return {
    replicaId,
    identity,
    fetch: fetchFn,
    leaseMs: leaseOption("leaseMs", options.leaseMs, DEFAULT_LEASE_MS),
    programLeaseMs: leaseOption("programLeaseMs", options.programLeaseMs, DEFAULT_PROGRAM_LEASE_MS),
    settleMs: numberOption("settleMs", options.settleMs, DEFAULT_SETTLE_MS, { min: "non-negative", max: MAX_SETTLE_MS }),
    retentionMs: numberOption("retentionMs", options.retentionMs, DEFAULT_RETENTION_MS),
    maxPrograms: numberOption("maxPrograms", options.maxPrograms, DEFAULT_MAX_PROGRAMS, { min: "non-negative", integer: true }),
    maxProgramBytes: numberOption("maxProgramBytes", options.maxProgramBytes, DEFAULT_MAX_PROGRAM_BYTES, { min: "non-negative" }),
    maxResultBytes: numberOption("maxResultBytes", options.maxResultBytes, DEFAULT_MAX_RESULT_BYTES, { min: "non-negative" }),
  };
}

/**
 * When the app made an ask that reaches a store later (a tab's ask handed to its own replica once
 * that loaded, or heard by the SharedWorker after its hello): ms on this machine's clock. Its
 * freshness demand is judged as of then, so a request sent after the ask, by any replica, answers
 * it as TanStack's mount joins a fetch in flight. Internal: a symbol, never one of the app's options.
 */
export const ASKED_AT: unique symbol = Symbol.for("shared-fetch.askedAt") as never;

const ENSURE_OPTIONS: Record<keyof EnsureOptions, 0> = { signal: 0, leaseMs: 0, maxAgeMs: 0, retry: 0, retryDelay: 0, skipInFlight: 0 };

/**
 * `ensure`'s options, checked before anything is written (a bad signal is a clear error, not a
 * TypeError). `maxAgeMs` is checked for every call that takes these options, refetch included,
 * though a refetch wants a newer revision whatever the age.
 */
export function ensureOptions(
  opts: unknown,
  fallbackLease: number,
  fn: "ensure" | "refetch" | "ensureProgram" | "refetchProgram",
): { signal: AbortSignal | undefined; leaseMs: number; maxAgeMs: number | undefined; skipInFlight: boolean; askedAt?: number } {
  if (opts === undefined || opts === null) return { signal: undefined, leaseMs: fallbackLease, maxAgeMs: undefined, skipInFlight: false };
  if (typeof opts !== "object") throw new SharedFetchInputError(`shared-fetch: ensure options must be an object, got ${describe(opts)}`);
  // `{ staleTime: 30_000 }` (TanStack's name for maxAgeMs) took any recorded result, whatever its age.
  // The hooks, the worker and a hand-over pass only these keys: the warning is the app's own.
  warnUnknownOptions("store." + fn, opts, ENSURE_OPTIONS);
  const { signal, leaseMs, maxAgeMs, skipInFlight } = opts as {
    signal?: unknown;
    leaseMs?: unknown;
    maxAgeMs?: unknown;
    skipInFlight?: unknown;
  };
  const asked = (opts as { [ASKED_AT]?: unknown })[ASKED_AT];
  if (signal !== undefined && !isSignal(signal))
    throw new SharedFetchInputError(`shared-fetch: signal must be an AbortSignal, got ${shownValue(signal)}`);
  if (skipInFlight !== undefined && typeof skipInFlight !== "boolean")
    throw new SharedFetchInputError(`shared-fetch: skipInFlight must be a boolean when given, got ${describe(skipInFlight)}`);
  return {
    signal: signal as AbortSignal | undefined,
    leaseMs: leaseOption("leaseMs", leaseMs, fallbackLease),
    maxAgeMs: maxAgeMs === undefined ? undefined : numberOption("maxAgeMs", maxAgeMs, 0, { min: "non-negative" }),
    skipInFlight: skipInFlight === true,
    // Never later than now: a demand judged in the future would take any outcome for fresh. Kept
    // in now's ms: read again to judge, the clock may have ticked (a busy machine).
    ...(typeof asked === "number" && asked <= Date.now() ? { askedAt: asked } : {}),
  };
}

/** `ensure`'s retry options as the claimant's policy (checked like the rest, before anything is written). */
export function retryOptions(opts: unknown): RetryPolicy | undefined {
  if (typeof opts !== "object" || opts === null) return undefined;
  const { retry, retryDelay } = opts as { retry?: unknown; retryDelay?: unknown };
  return resolveRetry(retry, retryDelay);
}

/** A subscriber, checked where it is given: a non-function would fail later, inside some other change. */
export function checkedListener<L = () => void>(listener: unknown, method = "subscribe"): L {
  if (typeof listener !== "function")
    throw new SharedFetchInputError(`shared-fetch: ${method} needs a listener function, got ${describe(listener)}`);
  return listener as L;
}

/**
 * `locks` given to a store, connectBrowser or the worker's replica: a LockManager, or null for none.
 * Checked where given: connectBrowser's tab replica, made later, refused it only on the console
 * (its asks pending for ever), and the worker's replica failed at its first lock.
 */
export function checkLocks(locks: unknown): void {
  const problem = locks === null ? undefined : lacking(locks, ["request"]);
  if (problem)
    throw new SharedFetchInputError(`shared-fetch: locks must be a LockManager (navigator.locks) or null when given, got ${problem}`);
}

/** What is missing from `value` as an object with these methods (undefined when it is absent or has them), named by type only. */
function lacking(value: unknown, methods: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) return kindOf(value);
  const missing = methods.find((m) => typeof (value as Record<string, unknown>)[m] !== "function");
  return missing === undefined ? undefined : `an object without ${missing}()`;
}

function isSignal(value: unknown): value is AbortSignal {
  const v = value as AbortSignal | null;
  return typeof v === "object" && v !== null && typeof v.aborted === "boolean" && typeof v.addEventListener === "function";
}

/** Bad input rejects at once and writes nothing; the promise returned is the one `fn` created. */
export function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn();
  } catch (error) {
    return Promise.reject(error);
  }
}
