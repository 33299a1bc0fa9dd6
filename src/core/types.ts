import type * as Y from "yjs";
import type { Awareness } from "y-protocols/awareness";
import type { RetryDelayOption, RetryOption, RetryPolicy } from "./retry.ts";

/** A request as callers describe it. Header values and the body are hashed into the key, never stored. */
export type SharedRequest = {
  url: string;
  /** GET (default), HEAD, POST, PUT, PATCH, DELETE or OPTIONS. */
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
  /** How the response body is read: "json" (default) or "text". */
  parse?: "json" | "text" | undefined;
  /**
   * Part of the key, never sent: asks of one request with one callId share a call of their own,
   * apart from the request's other asks, in every replica (a mutation every tab restored and resumes).
   */
  callId?: string | undefined;
};

export type SnapshotStatus = "idle" | "pending" | "success" | "error";

export type ClaimView = {
  /** The replica that holds the claim. */
  replicaId: string;
  /** True when the claim is this store's own. */
  mine: boolean;
  /** True when the claimant is believed gone (lease ran out, lock released or presence left). */
  stale: boolean;
  /** How many attempts of this claim failed and were retried so far (`n`; absent: none), and the last failure. */
  failed?: SnapshotError & { n: number };
};

export type SnapshotError = { message: string; status?: number | undefined };

export type Snapshot<T = unknown> = {
  status: SnapshotStatus;
  /** The latest recorded result; kept while a refetch runs or fails. */
  data?: T;
  /** Present when the latest recorded outcome is an error. */
  error?: SnapshotError;
  /** Present while a claim on work no recorded result answers stands (above the latest result; at or below a newer error, while live). */
  claim?: ClaimView;
};

export type ProgramFile = { name: string; contents: string };
/** `files` are URL paths, `main` first; `externals` are bare specifiers and other origins, not fetched. */
export type Program = { main: string; files: ProgramFile[]; externals: string[] };

export type ProgramRequest = {
  url: string;
  /** Also return JavaScript for each TS/JSX file as `compiled` (file name → code); part of the key. */
  compile?: boolean | undefined;
};

export type EnsureOptions = {
  /** Aborting it withdraws this waiter; the request is aborted when every waiter of this replica is gone. */
  signal?: AbortSignal | undefined;
  /** Override of the lease bound for a claim this call makes. */
  leaseMs?: number | undefined;
  /**
   * Freshness demand: a recorded outcome older than this (by its `at`, see Snapshot.updatedAt) is
   * not enough; then ensure waits for a newer revision like `refetch` (joining one already
   * claimed). Default: any recorded outcome will do.
   */
  maxAgeMs?: number | undefined;
  /**
   * Retries inside the claim, should this replica fetch (default: none): TanStack's `retry` (a
   * number of retries, true/false, or `(failureCount, error) => boolean`), or a RetryPolicy.
   */
  retry?: RetryOption | RetryPolicy | undefined;
  /** TanStack's `retryDelay` for a `retry` that is not a RetryPolicy (default: TanStack's exponential delay). */
  retryDelay?: RetryDelayOption | undefined;
  /**
   * `refetch` only: answer with a request sent after this call, never one already claimed (it may
   * have been sent before the change you refetch for, e.g. a mutation), as TanStack's `refetch()`
   * and `invalidateQueries` cancel a fetch in flight and start another. Calls made before that
   * request is claimed still share it. The query hooks set it for explicit refetches.
   */
  skipInFlight?: boolean | undefined;
};

/**
 * `ensureProgram` / `refetchProgram` per call: withdraw with `signal`; `leaseMs` overrides the
 * store's programLeaseMs; `skipInFlight` as EnsureOptions' (a refetch answered by a resolution
 * sent after the call: one in flight may have read the modules before a deploy). `maxAgeMs`: a
 * resolution asked for longer ago than this re-resolves (a poll); by default any recorded one will do.
 * `retry` / `retryDelay` as EnsureOptions': a failed resolution is resolved again inside the claim.
 */
export type ProgramOptions = Pick<EnsureOptions, "signal" | "leaseMs" | "skipInFlight" | "maxAgeMs" | "retry" | "retryDelay">;

export type SharedFetchStoreOptions = {
  /** Shared document, synced by whatever providers the app attaches. */
  doc: Y.Doc;
  /** Default: random, unique per store instance. */
  replicaId?: string | undefined;
  /** User or session scope; part of every key. Default "anonymous". */
  identity?: string | undefined;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch | undefined;
  /** Lease bound of fetch claims, default 5000 ms. */
  leaseMs?: number | undefined;
  /** Lease bound of program claims, default 10000 ms. */
  programLeaseMs?: number | undefined;
  /** Presence (from connectTabs/connectPeers): a peer whose presence is removed has its claims go stale at once. */
  awareness?: Awareness | undefined;
};

export interface SharedFetchStore {
  readonly replicaId: string;
  ensure(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot>;
  snapshot(req: SharedRequest): Snapshot;
  subscribe(req: SharedRequest, listener: () => void): () => void;
  /** Waits for a revision newer than what is recorded now (joining one already claimed). */
  refetch(req: SharedRequest, opts?: EnsureOptions): Promise<Snapshot>;
  ensureProgram(req: ProgramRequest, opts?: ProgramOptions): Promise<Snapshot<Program>>;
  programSnapshot(req: ProgramRequest): Snapshot<Program>;
  subscribeProgram(req: ProgramRequest, listener: () => void): () => void;
  /** Orderly stop: abort local work, release own claims only. */
  destroy(): void;
}
