import type { IndexeddbPersistence } from "y-indexeddb";

/**
 * y-indexeddb's `whenSynced` never settles when the database refuses to open (private modes,
 * quota); only its private `_db` promise rejects then. The one use of that field lives here
 * (y-indexeddb 9.0.12), so an upgrade that renames it breaks this file, not the tabs in silence.
 */
export function onOpenFailure(persistence: IndexeddbPersistence, fn: () => void): void {
  const db = (persistence as unknown as { _db?: Promise<unknown> })._db;
  if (db && typeof db.catch === "function") db.catch(fn);
}
