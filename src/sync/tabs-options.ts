import { checkLocks } from "../core/store-options.ts";
import { shownValue } from "../core/errors.ts";
import type { LockManagerLike } from "../core/locks.ts";
import { warnUnknownOptions } from "../core/options.ts";
import type { Doc } from "yjs";
import { requireDoc, requireNonEmptyString, requireOptionalBoolean, requireOptions } from "./connection.ts";
import { DEFAULT_SNAPSHOT_BYTES } from "./local-snapshot.ts";
import type { FlushLocks } from "./tab-flush.ts";

export type TabsOptions = {
  /** Names the BroadcastChannel group and the IndexedDB database: one per doc and trust boundary. */
  name: string;
  /** Persist the doc in IndexedDB (y-indexeddb's format). Default: true when globalThis.indexedDB exists. */
  indexeddb?: boolean | undefined;
  /**
   * Whether IndexedDB may already hold this doc; false lets the first claims go out before the
   * database is read (a first visit). Default: the mark this origin keeps in localStorage, and true
   * where there is none to read (a worker: the tab that says hello tells it).
   */
  persisted?: boolean | undefined;
  /**
   * Largest doc state (encoded bytes) also kept in localStorage, where a return visit's first
   * render reads it before IndexedDB opens; 0 keeps none. Default 65536 (64 KiB). Only with
   * IndexedDB persistence.
   */
  snapshotBytes?: number | undefined;
  /**
   * Web Locks for the tab's own lock, the IndexedDB writer's and the count of other tabs (default
   * `navigator.locks`; null: none). Pass the LockManager given to the store, so that every lock of
   * the replica is taken from one place.
   */
  locks?: LockManagerLike | null | undefined;
};

export type PageLocks = Partial<FlushLocks>;

/**
 * connectTabs' options checked, each bad one named, before anything is opened. Returns the bound of
 * the localStorage copy (its default where none is given).
 */
export function checkTabsOptions(doc: Doc, opts: TabsOptions): number {
  requireDoc("connectTabs", doc);
  requireOptions("connectTabs", opts, "{ name, indexeddb?, persisted?, snapshotBytes?, locks? }");
  warnUnknownOptions("connectTabs", opts, { name: 0, indexeddb: 0, persisted: 0, snapshotBytes: 0, locks: 0 } satisfies Record<
    keyof TabsOptions,
    0
  >);
  requireNonEmptyString("connectTabs", "name", opts.name);
  requireOptionalBoolean("connectTabs", "indexeddb", opts.indexeddb);
  requireOptionalBoolean("connectTabs", "persisted", opts.persisted);
  checkLocks(opts.locks);
  const snapshotBytes = opts.snapshotBytes ?? DEFAULT_SNAPSHOT_BYTES;
  if (!Number.isSafeInteger(snapshotBytes) || snapshotBytes < 0) {
    throw new TypeError(
      `connectTabs: \`snapshotBytes\` must be a whole number of bytes ≥ 0 when given, got ${shownValue(opts.snapshotBytes)}`,
    );
  }
  return snapshotBytes;
}

/** The page's Web Locks, as far as it has them (Node has none). */
export function navigatorLocks(): PageLocks | undefined {
  return (globalThis as { navigator?: { locks?: PageLocks } }).navigator?.locks;
}
