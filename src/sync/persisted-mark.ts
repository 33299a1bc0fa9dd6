import { readStored, removeStored, writeStored } from "../core/local-storage.ts";

/**
 * Whether this browser ever wrote a doc of this name into IndexedDB, kept beside it in
 * localStorage. Opening IndexedDB costs hundreds of milliseconds on a first visit with several
 * tabs booting; a tab that knows the database holds nothing of ours claims without waiting for it.
 * Unknown (no localStorage: workers, Node, storage denied) counts as "maybe": then the tab waits.
 */
const markKey = (name: string) => `shared-fetch:persisted:${name}`;

export function mayHavePersisted(name: string): boolean {
  return readStored(markKey(name)) !== null;
}

/**
 * Records that the doc of `name` is persisted (once per tab: its first update). Storage that is
 * full lets a later tab skip the wait, and at worst ask the host for what the database held.
 */
export function markPersisted(name: string): void {
  writeStored(markKey(name), "1");
}

/** Forgets the marks, with the database they stood for (clearTabsStorage). */
export function forgetPersisted(name: string): void {
  removeStored(markKey(name));
  removeStored(devicesKey(name));
}

/**
 * Whether a doc of this name ever synced with other devices in this browser (connectPeers or
 * connectHocuspocus beside connectTabs, in any tab, before or after it): its database and its tabs
 * may then hold records written on other devices' clocks. Undefined where there is no localStorage
 * (a SharedWorker, storage denied): the database's own mark tells then (see persistDoc), and
 * without one it reads as yes. Kept here for the tabs that persist nothing (`indexeddb: false`).
 */
const devicesKey = (name: string) => `shared-fetch:devices:${name}`;

export function othersMayHaveWritten(name: string): boolean | undefined {
  const stored = readStored(devicesKey(name));
  return stored === undefined ? stored : stored !== null;
}

/**
 * Storage that refuses it (full of the app's data) gets room by the doc's copy, a cache the
 * database stands behind: unmarked, a later tab on connectTabs alone takes other devices' times
 * for ours and sweeps what they asked for a moment ago, on every device.
 */
export function markOthersWrite(name: string): void {
  if (writeStored(devicesKey(name), "1")) return;
  removeSnapshot(name);
  writeStored(devicesKey(name), "1");
}

/**
 * The key of the doc's copy in localStorage (local-snapshot.ts), kept here, apart from Yjs: a
 * SharedWorker tab imports these marks on its page load, and its bundle loads Yjs only on demand.
 */
export const snapshotKey = (name: string) => `shared-fetch:snapshot:${name}`;

/** Removes the stored copy (clearTabsStorage; a mark that needs its room). */
export function removeSnapshot(name: string): void {
  removeStored(snapshotKey(name));
}
