/**
 * A tab granted IndexedDB's writer lock after it missed updates merges at once: it reads the
 * records and writes its whole state, so what the writer before it never stored (it crashed, or
 * closed before its write committed) still reaches the database. A destroy while that merge was
 * still reading (the tab closed, or its doc destroyed, right at its grant) abandoned it: what only
 * that tab held was stored by nobody. The merge now goes on past the destroy, in its read's
 * transaction, which the database's close lets finish: destroy returns at once as before, and the
 * merge writes the one record it would have written.
 *
 * Tabs of one browser: fake-indexeddb, Node's BroadcastChannel, FakeLocks (crash(tab) frees a
 * tab's locks as the browser does). A crash is a tab whose IndexedDB writes never commit.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { cleanupsAfterEach, idbTurns, storedDoc } from "../harness/indexeddb-records.ts";

const onCleanup = cleanupsAfterEach();

/** A tab on `locks.forTab(tag)`; `db` is its own IndexedDB connection, to tell its requests apart. */
function openTab(name: string, locks: FakeLocks, tag: string) {
  vi.stubGlobal("navigator", { locks: locks.forTab(tag) });
  const open = vi.spyOn(indexedDB, "open");
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, snapshotBytes: 0 });
  const request = open.mock.results[0]?.value as IDBOpenDBRequest;
  open.mockRestore();
  let closed = false;
  const close = () => void (closed || ((closed = true), conn.destroy(), doc.destroy()));
  onCleanup(close);
  return { tag, map: doc.getMap("m"), db: () => request.result, close };
}

it("a tab destroyed while the merge at its grant still reads: what only it held is stored all the same", async () => {
  const name = `destroy-mid-merge-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const writerLock = WRITER_LOCK_PREFIX + name;
  const writer = openTab(name, locks, "A");
  await vi.waitFor(() => expect(locks.heldBy("A")).toContain(writerLock));
  const next = openTab(name, locks, "B");
  await idbTurns();
  // The writer's writes never commit (it is about to crash): only B will hold what it writes now.
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    return this.transaction.db === writer.db() ? ({} as IDBRequest<IDBValidKey>) : add.apply(this, args);
  });
  writer.map.set("written", "by the writer, never stored");
  await vi.waitFor(() => expect(next.map.get("written")).toBe("by the writer, never stored"));
  await idbTurns();
  // B is destroyed right after its merge's read is asked: the page closes at the grant.
  const getAll = IDBObjectStore.prototype.getAll;
  const reads: IDBDatabase[] = [];
  vi.spyOn(IDBObjectStore.prototype, "getAll").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof getAll>) {
    reads.push(this.transaction.db);
    if (this.transaction.db === next.db()) queueMicrotask(next.close);
    return getAll.apply(this, args);
  });
  locks.crash("A");
  writer.close();
  await vi.waitFor(() => expect(reads).toContain(next.db()));
  await idbTurns();
  // Nothing without the fix: the merge returned at the destroy, unwritten.
  expect((await storedDoc(name)).getMap("m").toJSON()).toEqual({ written: "by the writer, never stored" });
});
