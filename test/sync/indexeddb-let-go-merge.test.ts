/**
 * One tab of a browser stores the doc in IndexedDB: the one holding the name's writer lock. A
 * writer whose merge was due (its records past the count or the bytes that call for one, a second
 * after its last write) and that let the lock go before that second ended (its page went into the
 * back/forward cache) still ran the merge once its timer fired, back from the cache: a whole state
 * written and the records read, beside the tab that holds the lock and merged at its grant already.
 * Real fake-indexeddb, FakeLocks, fake timers for the merge's delay only.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { persistDoc } from "../../src/sync/indexeddb-persistence.ts";
import { idbTurns, storedDoc } from "../harness/indexeddb-records.ts";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A tab's persistence on its own lock handle, and its own IndexedDB connection once open. */
function tab(name: string, locks: FakeLocks, tag: string) {
  const open = vi.spyOn(indexedDB, "open");
  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc, undefined, locks.forTab(tag));
  const request = open.mock.results[0]!.value as IDBOpenDBRequest;
  open.mockRestore();
  return { doc, persistence, db: () => request.result };
}

it("a writer that lets the lock go with a merge due writes nothing more: the tab granted the lock stores the doc", async () => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const name = `let-go-merge-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const writerLock = WRITER_LOCK_PREFIX + name;
  const a = tab(name, locks, "A");
  await idbTurns();
  await a.persistence.whenLoaded;
  await idbTurns();
  expect(locks.heldBy("A")).toContain(writerLock);
  const b = tab(name, locks, "B");
  await idbTurns();
  await b.persistence.whenLoaded;

  // More bytes than the merge floor (64 KiB): A's merge is due a second after this write.
  a.doc.getMap("m").set("big", "x".repeat(70_000));
  Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc)); // B hears it over the channel
  await idbTurns();

  const adds: string[] = []; // who added each record
  const who = (db: IDBDatabase) => (db === a.db() ? "A" : db === b.db() ? "B" : "?");
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    adds.push(who(this.transaction.db));
    return add.apply(this, args);
  });
  a.persistence.letGo(); // its page goes into the back/forward cache
  await idbTurns();
  expect(locks.heldBy("B")).toContain(writerLock);
  await idbTurns();
  expect(adds).toEqual(["B"]); // B's merge at its grant

  await vi.advanceTimersByTimeAsync(1500); // A's page shown again, its timers run
  await idbTurns();
  expect(adds).toEqual(["B"]); // [B, A] without the fix: A's merge ran after it let go

  await a.persistence.destroy();
  await b.persistence.destroy();
  expect((await storedDoc(name)).getMap("m").get("big")).toBe("x".repeat(70_000));
});
