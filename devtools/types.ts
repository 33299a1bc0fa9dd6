import type { MalformedRecord, StoreEvent } from "./core.ts";

/** What kind of work a key is, guessed from the table its result lives in (or the store's events). */
export type DevtoolsKind = "fetch" | "program" | "unknown";

/** A claim as this panel sees it. Staleness here is the panel's own judgement, see `stale`. */
export type DevtoolsClaim = {
  replicaId: string;
  /** The claim belongs to the inspected store. */
  mine: boolean;
  rev: number;
  leaseMs: number;
  browserId?: string;
  /** The claimant's page went away mid-request: anyone may take the work over at once. */
  abandoned: boolean;
  /** Whether the holder is in awareness; undefined when the panel was given no awareness. */
  holderPresent?: boolean;
  /**
   * No sign of life (a new claim or a heartbeat) seen for `leaseMs`, on this panel's clock since it
   * was created. Web Lock releases are invisible to the panel, so the store may know sooner.
   */
  leaseExpired: boolean;
  /** abandoned, or a foreign holder absent from awareness or silent beyond its lease. */
  stale: boolean;
  /** The claim's revision is already recorded: a leftover, not pending work. */
  finished: boolean;
};

export type DevtoolsKeyRow = {
  key: string;
  /** Method, origin and path (never a query string or body); the key's prefix when unknown. */
  label: string;
  kind: DevtoolsKind;
  claim?: DevtoolsClaim;
  /** `bytes`: size of the recorded data as UTF-8 JSON. */
  result?: { rev: number; bytes: number };
  error?: { rev: number; message: string; status?: number };
  /** The last asker's wall clock (another machine's clock: for reading, not for arithmetic). */
  lastAskedAt?: number;
};

export type DevtoolsReplica = {
  replicaId: string;
  /** The inspected store itself. */
  me: boolean;
  /** In awareness now; undefined when the panel was given no awareness. */
  present?: boolean;
  browserId?: string;
  /** Its heartbeat counter, bumped while it has work in flight. */
  heartbeat?: number;
  /** Claims it holds in the doc. */
  claims: number;
};

export type DevtoolsEvent = {
  /** Increasing per model: a stable React key. */
  seq: number;
  /** Local Date.now() when the store emitted it. */
  at: number;
  event: StoreEvent;
};

/** Immutable; keeps its identity (and its rows theirs) until their content changes. */
export type DevtoolsSnapshot = {
  replicaId: string;
  /** Whether presence is known (an awareness was given). */
  hasAwareness: boolean;
  keys: readonly DevtoolsKeyRow[];
  replicas: readonly DevtoolsReplica[];
  malformed: readonly MalformedRecord[];
  /** Oldest first, at most `maxEvents`. */
  events: readonly DevtoolsEvent[];
};
