import type { MalformedRecord } from "./lanes.ts";
import type { ClaimFailures } from "./records.ts";
import type { StaleReason } from "./liveness.ts";
import type { SettleWhy } from "./settle-window.ts";

/** Where a claim's holder runs, as this replica can tell. */
export type Holder = "this replica" | "same browser" | "other replica";

/** A claim with this store's own verdict on it: the same judgement the engine acts on. */
export type InspectedClaim = {
  replicaId: string;
  /** Unique per claim: a takeover keeps the revision and changes the nonce. */
  nonce: string;
  rev: number;
  kind?: "fetch" | "program";
  leaseMs: number;
  browserId?: string;
  abandoned: boolean;
  holder: Holder;
  mine: boolean;
  /** A leftover, not pending work: its revision is recorded, unless it still works there (as the snapshot reads it). */
  finished: boolean;
  /** Foreign claims: the claimant is gone or silent beyond its lease (never for our own, invariant 2). */
  stale: boolean;
  /** Why it is stale: lock released, presence left, lease silence, abandoned by its page, or disowned. */
  reason?: StaleReason;
  /** When it goes stale by silence, on this replica's clock (Infinity: only an event can tell). */
  staleAt: number;
  /** How long this replica has seen no sign of life from the claimant for it (0 for our own). */
  silentMs: number;
  /** The claimant is watched by its Web Lock (same browser): no lease applies. */
  exact: boolean;
  /** Replicas (this one included) that wait on its request, as their presence says: it goes on for them. Absent: none. */
  waiters?: string[];
  /** How many of its attempts failed and were retried, and the last failure, as the claim records them (records.ts). Absent: none. */
  failed?: ClaimFailures;
};

export type InspectedKey = {
  key: string;
  kind: "fetch" | "program" | "unknown";
  /** Method, origin and path only (never a query string, header value or body). */
  label?: string;
  /** Highest revision recorded (result or error). */
  recorded: number;
  /** `by`: the replica that wrote it, when the record names it. */
  result?: { rev: number; data: unknown; by?: string; invalidated?: true };
  error?: { rev: number; message: string; status?: number; by?: string; invalidated?: true };
  claim?: InspectedClaim;
  /** This replica's interest in the key. */
  local?: { waiters: number; listeners: number; attempt?: { rev: number; phase: string }; wantedRev?: number };
  /** The last ask's time (ask record, result or error), on the asker's wall clock: for reading, not for arithmetic. */
  lastAskedAt?: number;
};

export type InspectedReplica = {
  replicaId: string;
  me: boolean;
  browserId?: string;
  /** Seen in presence now (undefined: no presence was given to the store). */
  present?: boolean;
  /** The failure event this replica saw for it. */
  departed?: "presence-left" | "lock-released";
  /** Its heartbeat counter and when this replica last saw it change, on this replica's clock. */
  heartbeat?: { n: number; seenAt?: number };
  claims: number;
};

/**
 * The settle window a claim this replica made now would wait, and why (see SettleWhy): `ms` 0 and
 * `eager` where nobody can race it; `tripMs`, the round trip the window was sized from; `fenced`,
 * the claim also waits for the sync server's order (then `ms` is what is left of the window);
 * `refused`, Web Locks refused this store a key's lock or a watch (an opaque origin, a sandboxed
 * iframe, a broken `locks`): no key lock decides between this browser's tabs, whatever sized the
 * window, and a claimant of its browser goes stale by its lease, as across devices.
 */
export type InspectedSettle = {
  ms: number;
  eager: boolean;
  why: SettleWhy;
  tripMs?: number | undefined;
  fenced?: true | undefined;
  refused?: true | undefined;
};

/** A read-only view of what the store knows and believes, for the devtools and for tests. */
export type Inspection = {
  replicaId: string;
  at: number;
  keys: InspectedKey[];
  replicas: InspectedReplica[];
  malformed: MalformedRecord[];
  /** Undefined until known (a tab whose SharedWorker has not sent its first inspection yet). */
  settle?: InspectedSettle | undefined;
  /**
   * `starting`: the store's first claims wait for its Web Lock and its connectors' initial sync (2 s
   * at most); `suspended`: the page was hidden for good or frozen, its claims let go. Undefined until known.
   */
  lifecycle?: "starting" | "ready" | "suspended" | "destroyed" | undefined;
};
