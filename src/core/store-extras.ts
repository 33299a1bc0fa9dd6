import type { StoreEventListener } from "./events.ts";
import type { Inspection } from "./inspector.ts";
import type { MalformedRecord } from "./lanes.ts";
import type { ClaimRecord } from "./records.ts";
import type { Program, ProgramOptions, ProgramRequest, SharedFetchStore, SharedRequest, Snapshot } from "./types.ts";

/** Extras beyond the contract: the devtools panel and tests read these. */
export interface SharedFetchStoreExtras {
  readonly identity: string;
  /** The key a request is coordinated under (hash of identity and inputs). */
  keyOf(req: SharedRequest | string): string;
  onEvent(listener: StoreEventListener): () => void;
  /** What this store knows and believes now: every key's claim with its liveness verdict, replicas, malformed records. */
  inspect(): Inspection;
  /** Called after any change the inspector would show (doc records, verdicts, this store's events), batched per microtask. */
  onInspect(listener: () => void): () => void;
  /**
   * The recorded result's revision and `at` (when it was asked for, on its writer's clock, ms
   * since the epoch; absent in records that predate ages, see freshness.ts); undefined when none.
   */
  resultInfo(req: SharedRequest | string): { rev: number; at?: number; ahead?: true } | undefined;
  /** The same for a program's recorded resolution. */
  programResultInfo(req: ProgramRequest): { rev: number; at?: number; ahead?: true } | undefined;
  /** The key a program request is coordinated under (identity, entry URL, compile flag). */
  programKeyOf(req: ProgramRequest): string;
  /**
   * Like `refetch`: resolves the program again (joining a re-resolution already claimed). Its
   * signal withdraws this caller: the resolution is aborted once nobody waits for it (invariant 11).
   */
  refetchProgram(req: ProgramRequest, opts?: ProgramOptions): Promise<Snapshot<Program>>;
  /**
   * Whether this store's view of a key (by its key) is current. A SharedWorker tab hears of a key
   * only while it shows or asks for it; a store with a replica of its own always does (absent).
   */
  hears?(key: string): boolean;
  /**
   * Resolves once this store's view of the request is current (`hears`), subscribing to it till
   * then: it sends no request, whatever is held for the key. Present where `hears` is.
   */
  heard?(kind: "fetch" | "program", req: SharedRequest | ProgramRequest, signal?: AbortSignal): Promise<void>;
  /**
   * Where the store does not hear of the request's key: asks once what is held for it, calling
   * `done` when `snapshot` (or `programSnapshot`) reads it, and again once a result is recorded if
   * none was, until the returned function is called. A read only: it subscribes to nothing and
   * sends no request. Present where `hears` is.
   */
  look?(kind: "fetch" | "program", req: SharedRequest | ProgramRequest, done: () => void): () => void;
  /** Claims currently in the doc, every replica's. */
  claims(): [string, ClaimRecord][];
  /** Records from peers that failed validation and were ignored (invariant 14). */
  malformed(): MalformedRecord[];
}

export type SharedFetchStoreWithExtras = SharedFetchStore & SharedFetchStoreExtras;
