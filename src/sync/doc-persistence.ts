/** What a doc persisted in this browser offers the connector that keeps it (persistDoc, in indexeddb-persistence.ts). */
export type DocPersistence = {
  /** Resolves once the stored updates are in the doc (true), or when persisting gave up (false). */
  readonly whenLoaded: Promise<boolean>;
  /** Writes what waits for the write under way now, beside it (a page that goes away may not see that one end). */
  flush(): void;
  /** Flushes, and leaves the storing to another tab (a page going into the back/forward cache). */
  letGo(): void;
  /** Asks to store again after letGo (the page came back). */
  hold(): void;
  /**
   * Whether the doc of this name ever synced with other devices in this browser, as its database
   * says: true until it is read, or where it never is (maybe), and once this tab marked it.
   */
  othersWrote(): boolean;
  /** Marks it in the database (a cross-device connector joined the doc), for every later tab and worker. */
  markOthersWrote(): void;
  destroy(): Promise<void>;
};

/** Whether this runtime has IndexedDB (reading the global may itself throw where storage is denied). */
export function hasIndexedDB(): boolean {
  try {
    return typeof globalThis.indexedDB !== "undefined" && globalThis.indexedDB !== null;
  } catch {
    return false;
  }
}
