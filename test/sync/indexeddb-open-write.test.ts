/**
 * A tab opening its database wrote its whole state there (as y-indexeddb does), though only the
 * tab holding the name's writer lock stores the doc: each tab opened added a record the size of
 * the doc. A tab that is not the writer now writes nothing at its open; the merge at its grant, if
 * it ever becomes the writer, writes its state, and the first tab of a first visit, granted at
 * once, stores what it wrote before its database opened. Tabs of one browser: fake-indexeddb,
 * Node's BroadcastChannel, one in-memory lock manager (FakeLocks), each tab on its own handle.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { cleanupsAfterEach, storedDoc } from "../harness/indexeddb-records.ts";

const STATE = 20_000; // the doc's one value, in bytes: a record at least this size holds the state
const onCleanup = cleanupsAfterEach();

/** Every update added to IndexedDB, by connection, and every read of the updates store. */
function watchDatabase() {
  const adds: { db: IDBDatabase; bytes: number }[] = [];
  const reads = new Set<IDBDatabase>();
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    adds.push({ db: this.transaction.db, bytes: (args[0] as Uint8Array).byteLength });
    return add.apply(this, args);
  });
  const getAll = IDBObjectStore.prototype.getAll;
  vi.spyOn(IDBObjectStore.prototype, "getAll").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof getAll>) {
    reads.add(this.transaction.db);
    return getAll.apply(this, args);
  });
  return { adds, reads, stateSized: () => adds.filter((a) => a.bytes >= STATE).length };
}

/** A tab on `locks.forTab(tag)`; `db` is its own connection, once open; `write` runs before it opens. */
function openTab(name: string, locks: FakeLocks, tag: string, write?: (doc: Y.Doc) => void) {
  vi.stubGlobal("navigator", { locks: locks.forTab(tag) });
  const open = vi.spyOn(indexedDB, "open");
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, snapshotBytes: 0 });
  const request = open.mock.results[0]!.value as IDBOpenDBRequest;
  open.mockRestore();
  write?.(doc);
  let closed = false;
  const close = () => void (closed || ((closed = true), conn.destroy(), doc.destroy()));
  onCleanup(close);
  return { doc, db: () => (request.readyState === "done" ? request.result : undefined), close };
}

/** The map a tab opened now would load: the database's updates applied to a fresh doc. */
async function storedMap(name: string): Promise<Y.Map<unknown>> {
  return (await storedDoc(name)).getMap("m");
}

const until = (check: () => boolean) => vi.waitFor(() => expect(check()).toBe(true), { timeout: 3000, interval: 5 });
const writerIs = (locks: FakeLocks, tag: string, name: string) => locks.heldBy(tag).includes(WRITER_LOCK_PREFIX + name);

it("K tabs opened one after another add no state-sized record while the writer stays, one each time the writer changes", async () => {
  const name = `open-write-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const watch = watchDatabase();
  const a = openTab(name, locks, "A");
  await until(() => writerIs(locks, "A", name));
  a.doc.getMap("m").set("big", "x".repeat(STATE));
  await until(() => watch.stateSized() === 1); // the writer stores the update it made

  // Four more tabs, each opened once the one before it read its database: each gets the state
  // over the channel (it was in their docs as their databases opened) and queues for the lock.
  const tabs = ["B", "C", "D", "E"].map((tag) => ({ tag, tab: undefined as ReturnType<typeof openTab> | undefined }));
  for (const t of tabs) {
    t.tab = openTab(name, locks, t.tag);
    const tab = t.tab;
    await until(() => tab.db() !== undefined && watch.reads.has(tab.db()!));
    await until(() => tab.doc.getMap("m").get("big") !== undefined);
  }
  await new Promise((resolve) => setImmediate(resolve));
  expect(watch.stateSized()).toBe(1); // 5 without the change: one per tab opened

  // The writer closes: the next tab granted the lock merges, one state-sized record; and again.
  a.close();
  await until(() => writerIs(locks, "B", name) && watch.stateSized() === 2);
  tabs[0]!.tab!.close();
  await until(() => writerIs(locks, "C", name) && watch.stateSized() === 3);
  expect(watch.adds.filter((x) => x.bytes >= STATE).map((x) => x.db)).toEqual([a.db(), tabs[0]!.tab!.db(), tabs[1]!.tab!.db()]);

  expect((await storedMap(name)).get("big")).toBe("x".repeat(STATE));
});

it("the first tab of a first visit stores what it wrote before its database opened (granted the lock at once, it merges)", async () => {
  const name = `open-write-first-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  openTab(name, locks, "A", (doc) => doc.getMap("m").set("early", "claimed before the open answered"));
  await until(() => writerIs(locks, "A", name));
  await vi.waitFor(async () => expect((await storedMap(name)).get("early")).toBe("claimed before the open answered"), {
    timeout: 3000,
    interval: 10,
  });
});
