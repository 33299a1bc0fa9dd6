/**
 * The database's mark that this browser synced a doc of a name with other devices (the `custom`
 * store's "shared-fetch:devices", see persistDoc), read at the load and written once a
 * cross-device connector joins the doc. Two ways it went wrong: a database y-indexeddb made
 * before it had a `custom` store (its versions before 9 created `updates` alone, and an open
 * without a version never adds one) failed the whole load, its records never read and nothing
 * persisted after; and a mark made while the load's read of it was pending was overwritten by
 * that read's "no mark", so retention took the records for this device's own clock (DESIGN.md
 * invariant 2). Real fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { persistDoc } from "../../src/sync/indexeddb-persistence.ts";

afterEach(() => vi.restoreAllMocks());

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;
const done = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => ((req.onsuccess = () => resolve(req.result)), (req.onerror = () => reject(req.error))));

/** Opens `name` as y-indexeddb did before its `custom` store: version 1, `updates` alone. */
function openUpdatesOnly(name: string): Promise<IDBDatabase> {
  const open = indexedDB.open(name);
  open.onupgradeneeded = () => open.result.createObjectStore("updates", { autoIncrement: true });
  return done(open);
}

async function storedUpdates(name: string): Promise<Uint8Array[]> {
  const db = await done(indexedDB.open(name));
  const all = await done(db.transaction(["updates"]).objectStore("updates").getAll());
  db.close();
  return all as Uint8Array[];
}

it("a database with no `custom` store (y-indexeddb before v9) loads its records and goes on storing, its mark unknown (yes)", async () => {
  const name = unique("updates-only");
  const before = new Y.Doc();
  before.getMap("results").set("k", "stored by an older version");
  const db = await openUpdatesOnly(name);
  await done(db.transaction(["updates"], "readwrite").objectStore("updates").add(Y.encodeStateAsUpdate(before)));
  db.close();

  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc);
  expect(await persistence.whenLoaded).toBe(true);
  expect(doc.getMap("results").get("k")).toBe("stored by an older version");
  // Nothing in the database says no: the records may be other devices'.
  expect(persistence.othersWrote()).toBe(true);

  // A device joins (the mark has nowhere to go), then the doc changes: the change is stored.
  persistence.markOthersWrote();
  doc.getMap("results").set("later", "heard after the load");
  await vi.waitFor(async () => {
    const back = new Y.Doc();
    (await storedUpdates(name)).forEach((update) => Y.applyUpdate(back, update));
    expect(back.getMap("results").get("later")).toBe("heard after the load");
  });
  expect(warn).not.toHaveBeenCalled();
  expect(persistence.othersWrote()).toBe(true);
  await persistence.destroy();
});

it("a device joining while the load reads the mark: the tab and every later load say others wrote (invariant 2)", async () => {
  const name = unique("mark-race");
  // A database that exists with no mark in it.
  const first = persistDoc(name, new Y.Doc());
  expect(await first.whenLoaded).toBe(true);
  expect(first.othersWrote()).toBe(false);
  await first.destroy();

  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc);
  // The connector joins just after the load asked the database for the mark, before it answers.
  const get = IDBObjectStore.prototype.get;
  vi.spyOn(IDBObjectStore.prototype, "get").mockImplementation(function (this: IDBObjectStore, key: IDBValidKey | IDBKeyRange) {
    const req = get.call(this, key);
    if (this.name === "custom") persistence.markOthersWrote();
    return req;
  });
  expect(await persistence.whenLoaded).toBe(true);
  vi.restoreAllMocks();
  expect(persistence.othersWrote()).toBe(true);

  await vi.waitFor(async () => {
    const later = persistDoc(name, new Y.Doc());
    expect(await later.whenLoaded).toBe(true);
    const wrote = later.othersWrote();
    await later.destroy();
    expect(wrote).toBe(true);
  });
  await persistence.destroy();
});
