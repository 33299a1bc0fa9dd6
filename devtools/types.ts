import type { InspectedSettle, MalformedRecord, StoreEvent } from "./core.ts";
import type { TimelineEntry } from "./timeline-entry.ts";

/** A key's state as the panel counts it: `stale` is a claim the store believes abandoned, not yet taken over. */
export type DevtoolsKeyStatus = "idle" | "pending" | "stale" | "success" | "error";

/** What kind of work a key is, guessed from the table its result lives in (or the store's events). */
export type DevtoolsKind = "fetch" | "program" | "unknown";

/** A claim as the inspected store sees it: its verdicts are the store's own (store.inspect()). */
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
  /** No sign of life (a new claim or a covering heartbeat) seen for `leaseMs`, on the store's clock. */
  leaseExpired: boolean;
  /** The store's verdict: abandoned, lock released, presence left, silent beyond its lease, or disowned. */
  stale: boolean;
  /** The claim's revision is already recorded: a leftover, not pending work. */
  finished: boolean;
  /** Where the holder runs, as the inspected store can tell. */
  holder: "this replica" | "same browser" | "other replica";
  /** Why the store believes it stale: the same verdict the store acts on. */
  reason?: "abandoned" | "presence-left" | "lock-released" | "lease-silence" | "disowned";
  /** How long the store has seen no sign of life for it, on its own clock. */
  silentMs: number;
  /** Since when (the store's clock, as `staleAt`): the silence goes on growing with no doc change to show it. */
  silentSince?: number;
  /** When it goes stale by silence on the store's clock (Infinity: only an event can tell, or it is ours). */
  staleAt: number;
  /**
   * When this panel first saw the claim, on its own clock (the claim's `at` is its writer's clock,
   * skewed); for one that stood as the panel started, when it started (`seenAtStart`).
   */
  seenAt?: number;
  /** The claim stood when this panel started: the age from `seenAt` is a lower bound. */
  seenAtStart?: true;
  /** Replicas (the inspected one included) waiting on its request, as their presence says: it goes on for them. */
  waiters?: readonly string[];
  /** Its attempts that failed and were retried (`n`), and the last failure: the claimant is retrying. */
  failed?: { n: number; message: string; status?: number };
};

export type DevtoolsKeyRow = {
  key: string;
  /** Method, origin and path (never a query string or body); the key's prefix when unknown. */
  label: string;
  kind: DevtoolsKind;
  status: DevtoolsKeyStatus;
  /** Highest revision recorded (result or error), 0 when none. */
  recorded: number;
  claim?: DevtoolsClaim;
  /**
   * `bytes`: size of the recorded data as UTF-8 JSON; `by`: the replica that wrote it (when the
   * record names it); `at`: when this panel saw it written, on its clock (absent: before it started).
   */
  result?: { rev: number; bytes: number; by?: string; at?: number; invalidated?: true };
  error?: { rev: number; message: string; status?: number; by?: string; at?: number; invalidated?: true };
  /**
   * This store asked for the key (it can refetch it: it knows the request behind the hash). In a
   * SharedWorker tab: this tab shows the key (the worker asked for it, but for whichever tabs).
   */
  local: boolean;
  /**
   * This store's own attempt at the key, while it works on it: `locking` (waiting for the key's
   * Web Lock), `settling` (in its settle window), `settled` (about to send), `running` (its request
   * in flight). Where the time before a request goes.
   */
  attempt?: { rev: number; phase: string };
  /** This store asked for the key and makes no claim before it is in sync (its Web Lock, its connectors' initial sync, or a reconnect's sync; 2 s at most). */
  waitsForSync?: true;
  /** The last asker's wall clock (another machine's clock: for reading, not for arithmetic). */
  lastAskedAt?: number;
  /** A result or error record of the key failed validation (a buggy peer's): "evict record" removes it. */
  malformed?: true;
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
  /** How long ago the store saw that counter change, on its own clock. */
  heartbeatAgeMs?: number;
  /** The failure event the store saw for it. */
  departed?: "presence-left" | "lock-released";
  /** Claims it holds in the doc. */
  claims: number;
  /** Where it runs, as the inspected store can tell. */
  where: "this tab" | "this browser's SharedWorker" | "same browser" | "other device";
  /** When this panel saw `present` last change, on its clock (absent: unchanged since the panel started). */
  since?: number;
  /** Short hash of the store's identity (the inspected replica only: others' identities are hashed into keys). */
  identityHash?: string;
  /** Keys whose foreign claim it waits on, as its presence says (the claims' waiters). */
  waits?: readonly string[];
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
  /** The cross-replica timeline, newest first. */
  timeline: readonly TimelineEntry[];
  /** When the inspection behind this snapshot was taken, on the panel's clock. */
  at: number;
  counts: Readonly<Record<DevtoolsKeyStatus, number>>;
  /** Development simulations in force on the inspected replica. */
  simulations: { crashed: boolean; networkPaused: boolean };
  /** The settle window a claim of the inspected replica made at `at` would wait, and why (undefined: not known yet). */
  settle?: InspectedSettle;
  /** The inspected store was destroyed: this is its last view, judged no further. */
  storeDestroyed?: true;
  /** The inspected replica is this browser's SharedWorker, seen from one of its tabs (connectBrowser): not this tab's own. */
  worker?: true;
};
