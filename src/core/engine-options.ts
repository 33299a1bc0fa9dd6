import type { StoreEvent } from "./events.ts";
import type { DocRecords } from "./doc-records.ts";
import type { ClaimRecord } from "./records.ts";
import type { Settle } from "./settle-window.ts";
import type { TrustedAt } from "./freshness.ts";

export type EngineOptions = {
  records: DocRecords;
  replicaId: string;
  /** An outcome's `at` as this replica trusts it (freshness.ts, trustedAt). */
  at: TrustedAt;
  /** This replica's browser id, once its Web Lock is held (claims then name it). */
  browserId: () => string | undefined;
  /**
   * Called for a live-looking foreign claim; returns true when its claimant is watched by an exact
   * event (a Web Lock of this browser), which then replaces the lease.
   */
  watchClaimant?: (claim: ClaimRecord) => boolean;
  /** A replica whose lock was granted to us showed a sign of life: its lock may be watched again. */
  revived?: (replicaId: string) => void;
  /** The settle window for a claim made now, whether it is eager (no window: see ClaimRecord.eager), and why. */
  settle: () => Settle;
  /** Same-browser arbitration of a key by its Web Lock (see AttemptDeps.keyLock). */
  keyLock?: (key: string, signal: AbortSignal) => Promise<() => void>;
  emit: (event: StoreEvent) => void;
  /** Something the inspector shows changed with no event to say so (a key waiting for the sync, or for its lock). */
  changed?: () => void;
  /**
   * Claims wait for this (the grant of this replica's own Web Lock, a few ms): a claim written
   * before it could not name its browser, and its crash would then be found only by the lease.
   */
  ready?: () => Promise<void>;
  /** A claim about to be made waits for this first, when it is given (connectors.ts, resyncWaits). */
  resync?: () => Promise<void> | undefined;
  /**
   * True once the store's initial sync is over: a wait for readiness then is a reconnect's
   * (`resync`), or a page's shown again (its lock, and a reconnect still under way), and holds no
   * key lock.
   */
  started?: () => boolean;
  /**
   * Whether another replica waits on this replica's claim of `key` at `rev` (presence.ts,
   * PresenceSelf.waits), or may (`sent`: its request is out, and a wait may be on its way).
   */
  awaited?: (key: string, rev: number, sent: boolean) => boolean;
  /** This replica waits on a foreign claim of `key` for `rev` (undefined: no longer): tells the claimant. */
  waits?: (key: string, rev: number | undefined) => void;
};
