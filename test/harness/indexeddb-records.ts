/**
 * Reading what IndexedDB (fake-indexeddb under Node) holds for a doc's database, as a tab opened
 * now would load it, and the tab tests' clean-up. Each read opens its own connection and closes it.
 */
import { afterEach, vi } from "vitest";
import * as Y from "yjs";

/** IndexedDB (fake-indexeddb) runs on setImmediate: a write commits within these turns. */
export const idbTurns = async (n = 8) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** A connection to database `name`, as it is (no version: no upgrade, no store added). */
export function openDatabase(name: string): Promise<IDBDatabase> {
  return new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/** Every record of the database's `updates` store, one Yjs update each. */
export async function storedUpdates(name: string): Promise<Uint8Array[]> {
  const db = await openDatabase(name);
  try {
    return await new Promise<Uint8Array[]>((resolve, reject) => {
      const all = db.transaction(["updates"]).objectStore("updates").getAll();
      all.onsuccess = () => resolve(all.result as Uint8Array[]);
      all.onerror = () => reject(all.error);
    });
  } finally {
    db.close();
  }
}

/** What a tab opened now would load: the database's updates applied to a fresh doc. */
export async function storedDoc(name: string): Promise<Y.Doc> {
  const doc = new Y.Doc();
  for (const update of await storedUpdates(name)) Y.applyUpdate(doc, update);
  return doc;
}

/**
 * Registers, in the calling test file, an afterEach that runs what each test handed it (last
 * first), then undoes its stubbed globals and mocks; returns the function to hand them to.
 */
export function cleanupsAfterEach(): (cleanup: () => void) => void {
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.reverse()) cleanup();
    cleanups = [];
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
  return (cleanup) => void cleanups.push(cleanup);
}
