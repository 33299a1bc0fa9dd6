/**
 * IndexedDB is stored by the one tab of a browser that holds the name's writer lock. A page the
 * browser freezes (a background tab frozen to save power or memory: `freeze` on its document, its
 * tasks held until `resume`) runs nothing, as one in the back/forward cache: while it held the
 * lock, or was granted it while frozen (its callback a task that waits for the resume), every
 * other tab stored nothing for as long as it stayed frozen, and what they wrote meanwhile reached
 * the database only if it was resumed before they all closed. The store lets its own Web Lock go
 * at `freeze` (page-lifecycle.ts); the writer lock now goes with it, and is asked for again at
 * `resume`. Tabs of one browser: fake-indexeddb, Node's BroadcastChannel, FakeLocks.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { cleanupsAfterEach, idbTurns, storedDoc } from "../harness/indexeddb-records.ts";

const onCleanup = cleanupsAfterEach();

/**
 * A tab whose page can be frozen: `freeze()` dispatches `freeze` on its document, and from then on
 * its lock callbacks wait (a frozen page runs no task) until `resume()`.
 */
function openTab(name: string, locks: FakeLocks, tag: string) {
  let frozen = false;
  let thaw: (() => void)[] = [];
  const page = locks.forTab(tag);
  const own = {
    ...page,
    request: (lock: string, options: LockOptions, callback: (l: unknown) => Promise<unknown>) =>
      page.request(lock, options, (l) => (frozen ? new Promise<void>((go) => thaw.push(go)).then(() => callback(l)) : callback(l))),
  };
  vi.stubGlobal("navigator", { locks: own });
  const document = new EventTarget();
  vi.stubGlobal("document", document);
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, snapshotBytes: 0 });
  let closed = false;
  const close = () => void (closed || ((closed = true), conn.destroy(), doc.destroy()));
  onCleanup(close);
  return {
    tag,
    map: doc.getMap("m"),
    close,
    freeze: () => {
      document.dispatchEvent(new Event("freeze"));
      frozen = true;
    },
    resume: () => {
      frozen = false;
      thaw.forEach((go) => go());
      thaw = [];
      document.dispatchEvent(new Event("resume"));
    },
  };
}

const until = (what: string, check: () => boolean) => vi.waitFor(() => expect(check(), what).toBe(true), { timeout: 3000, interval: 5 });

it("the writer's page is frozen: the lock passes to a live tab, which stores what it hears; resumed, the page queues for it again", async () => {
  const name = `frozen-writer-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const writerLock = WRITER_LOCK_PREFIX + name;
  const a = openTab(name, locks, "A");
  await until("A holds the lock", () => locks.heldBy("A").includes(writerLock));
  const b = openTab(name, locks, "B");
  await idbTurns();
  a.freeze();
  await until("B holds the lock", () => locks.heldBy("B").includes(writerLock)); // A keeps it without the fix
  b.map.set("while", "A is frozen");
  await idbTurns();
  expect((await storedDoc(name)).getMap("m").get("while")).toBe("A is frozen");
  a.resume();
  b.close();
  await until("A holds the lock again", () => locks.heldBy("A").includes(writerLock));
  a.map.set("resumed", "stores again");
  await idbTurns();
  expect((await storedDoc(name)).getMap("m").toJSON()).toEqual({ while: "A is frozen", resumed: "stores again" });
});

it("a tab queued for the lock is frozen: it withdraws its request, and the writer's lock passes to a live tab", async () => {
  const name = `frozen-queued-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const writerLock = WRITER_LOCK_PREFIX + name;
  const a = openTab(name, locks, "A");
  await until("A holds the lock", () => locks.heldBy("A").includes(writerLock));
  const b = openTab(name, locks, "B"); // first in the queue behind A
  await idbTurns();
  const c = openTab(name, locks, "C");
  await idbTurns();
  b.freeze();
  a.close();
  await until("C holds the lock", () => locks.heldBy("C").includes(writerLock)); // B, frozen, is granted it without the fix
  expect(locks.heldBy("B")).not.toContain(writerLock);
  c.map.set("stored by", "the live tab");
  await idbTurns();
  expect((await storedDoc(name)).getMap("m").get("stored by")).toBe("the live tab");
});
