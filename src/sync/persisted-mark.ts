/**
 * Whether this browser ever wrote a doc of this name into IndexedDB, kept beside it in
 * localStorage. Opening IndexedDB costs hundreds of milliseconds on a first visit with several
 * tabs booting; a tab that knows the database holds nothing of ours claims without waiting for it.
 * Unknown (no localStorage: workers, Node, storage denied) counts as "maybe": then the tab waits.
 */
const markKey = (name: string) => `shared-fetch:persisted:${name}`;

export function mayHavePersisted(name: string): boolean {
  try {
    if (typeof localStorage === "undefined" || localStorage === null) return true;
    return localStorage.getItem(markKey(name)) !== null;
  } catch {
    return true;
  }
}

/** Records that the doc of `name` is persisted (once per tab: its first update). */
export function markPersisted(name: string): void {
  try {
    if (typeof localStorage !== "undefined" && localStorage !== null) localStorage.setItem(markKey(name), "1");
  } catch {
    // Storage denied (reading throws too: "maybe") or full (a later tab skips the wait and at
    // worst asks the host for what the database held).
  }
}
