import type { AbortReason } from "./decide.ts";
import type { DocRecords } from "./doc-records.ts";
import type { StoreEvent } from "./events.ts";
import type { Heartbeat } from "./heartbeat.ts";
import type { ClaimRecord } from "./records.ts";
import type { Settle } from "./settle-window.ts";
import type { Attempt } from "./attempt.ts";

/** What an attempt needs from its engine. */
export type AttemptDeps = {
  records: DocRecords;
  replicaId: string;
  /** This replica's browser id once its Web Lock is held (the claim then names it), read as it writes. */
  browserId: () => string | undefined;
  heartbeat: Heartbeat;
  /**
   * The last claim the key's waiters here saw standing: one at this revision was released
   * unfinished since (its claimant's last waiter aborted, its store was destroyed), and its
   * request may have reached the host: ours carries its Idempotency-Key (invariant 12).
   */
  joined?: ClaimRecord | undefined;
  emit: (event: StoreEvent) => void;
  /** Writes now, in one transaction of this store's origin. */
  write: (fn: () => void) => void;
  /** Writes with the other claims of this tick, in one transaction; `before` runs right ahead of it. */
  batch: (fn: () => void, before?: () => void) => void;
  /** The claim was written: its silence clock starts now. */
  seen: (claim: ClaimRecord) => void;
  /** The attempt changed phase or settled: the engine decides again. */
  changed: () => void;
  /**
   * Same-browser arbitration: resolves with a release function once this tab holds the key's Web
   * Lock (rejects when `signal` aborts). Tabs that claim the key at the same moment queue on it:
   * exactly one writes its claim, the others see that claim arrive and yield — no timed window.
   */
  keyLock?: (key: string, signal: AbortSignal) => Promise<() => void>;
  /** The settle window of a claim made now: read again when the key lock was refused (see ReplicaLocks.refused). */
  resettle?: () => Settle;
  /**
   * The settle window for this claim: 0 when only tabs of this browser can race (the key lock
   * decides), or eager when no replica of another browser is present (see ClaimRecord.eager).
   */
  settle: Settle;
  /**
   * A live rival claim of this key at `rev` or above, other than `nonce`, in the doc now (racing
   * entries included): read when the fence is answered, it reached the server ahead of ours.
   */
  rivalAhead: (key: string, nonce: string, rev: number) => ClaimRecord | undefined;
  /**
   * Calls `seen` synchronously whenever the key's claims change in the doc, until the returned
   * function is called: a rival that arrives before the fence's answer may be deleted as the
   * doc's election loser (a microtask later) before that answer comes.
   */
  watchClaims: (key: string, seen: () => void) => () => void;
  /**
   * Whether the engine would dispatch this attempt the moment its claim stands (the decision
   * table asked with our claim in the doc and the window passed). Asked only where the key lock
   * decides and no window follows the claim: then the request leaves before the claim's
   * transaction (its index, its messages to the tabs, its IndexedDB write) rather than after it.
   */
  runsAtOnce?: () => boolean;
  /** The attempt this one replaces (refetched): its claim stands, and its key lock is held, for ours. */
  replaces?: Attempt | undefined;
  /** A revision above ours holding older data (freshness.ts, outran): our result is recorded at it. */
  over?: () => number | undefined;
};

/** Where the sync server placed this claim among its rivals (see Settle.fence); undefined when unknown. */
export type ClaimOrder = "first" | "behind";

/** Why an attempt stopped without an outcome: the engine's reasons, a store teardown, or a page going away. */
export type StopReason = AbortReason | "destroyed" | "hidden";

/** A key lock asked for: its grant, and what withdraws the request. */
export type KeyLockAsked = { granted: Promise<() => void>; cancel: AbortController };
