/**
 * No unbounded growth behind a hung IndexedDB write: persistence writes one batch at a time and
 * keeps the doc's updates that come meanwhile in memory. A write that does not end (another
 * connection's transaction holding the store, a browser's storage hang) kept every update of
 * every tab and peer for as long as it lasted, each version of a result rewritten since included,
 * though the doc itself keeps only the latest: 2 000 rewrites of a 10 KB value queued 20 MB, and
 * then wrote them as one record. What waits is now folded into the doc's state once it passes a
 * hundred updates and twice that state's last size (or what was read from storage): it stays
 * within twice the doc's size or a hundred updates, a burst of new records or of small updates
 * is not re-encoded at every hundred, and what is stored after the hang ends still reads back as
 * the doc. Real fake-indexeddb; the hang is a real
 * transaction that never lets go until released.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import * as Y from "yjs";
import { persistDoc } from "../../src/sync/indexeddb-persistence.ts";
import { openDatabase, storedUpdates } from "../harness/indexeddb-records.ts";

const VALUE = 10_000;

/** Holds a readwrite transaction on the database's `updates` store until `release()`. */
async function holdUpdates(name: string): Promise<{ release: () => Promise<void> }> {
  const db = await openDatabase(name);
  const tx = db.transaction(["updates"], "readwrite");
  let held = true;
  const spin = (): void => {
    if (held) tx.objectStore("updates").count().onsuccess = spin;
  };
  spin();
  const done = new Promise<void>((resolve) => (tx.oncomplete = () => resolve()));
  return {
    release: async () => {
      held = false;
      await done;
      db.close();
    },
  };
}

async function storedBytes(name: string): Promise<{ bytes: number; updates: Uint8Array[] }> {
  const updates = await storedUpdates(name);
  return { bytes: updates.reduce((n, u) => n + u.byteLength, 0), updates };
}

/**
 * persistDoc from a copy of its module that counts the bytes it encodes with Y.encodeStateAsUpdate
 * (its folds): counted, not timed.
 */
async function countingEncodes() {
  let encoded = 0;
  vi.resetModules();
  vi.doMock("yjs", async (importOriginal) => {
    const yjs = await importOriginal<typeof Y>();
    const encodeStateAsUpdate: typeof Y.encodeStateAsUpdate = (...args) => {
      const state = yjs.encodeStateAsUpdate(...args);
      encoded += state.byteLength;
      return state;
    };
    return { ...yjs, encodeStateAsUpdate };
  });
  const { persistDoc: counted } = await import("../../src/sync/indexeddb-persistence.ts");
  vi.doUnmock("yjs");
  return { persistDoc: counted, encoded: () => encoded };
}

it("a hung write keeps no more than the doc and a hundred updates waiting: 2 000 rewrites of 10 KB store about one", async () => {
  const name = `queue-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc);
  expect(await persistence.whenLoaded).toBe(true);
  const map = doc.getMap<string>("m");
  map.set("v", "first");
  await new Promise((resolve) => setTimeout(resolve, 20)); // that write ends: nothing is under way
  const hang = await holdUpdates(name);
  map.set("v", "a");
  await new Promise((resolve) => setTimeout(resolve, 20)); // a write is now under way, held
  for (let i = 0; i < 2000; i++) map.set("v", `${i}`.padEnd(VALUE, "x"));
  await hang.release();
  // The held write ends, then the next one writes what waited.
  let stored = await storedBytes(name);
  for (let i = 0; i < 50 && stored.updates.length < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    stored = await storedBytes(name);
  }
  expect(stored.bytes).toBeLessThan(150 * VALUE);
  const back = new Y.Doc();
  stored.updates.forEach((u) => Y.applyUpdate(back, u));
  expect(back.getMap("m").get("v")).toBe(`${1999}`.padEnd(VALUE, "x"));
  await persistence.destroy();
});

// 3 000 results of 10 KB through fake-indexeddb: past the unit project's 5 s at load 20.
it("a burst of new results behind a write under way is not re-encoded every hundred: the doc's state costs about its own size", async () => {
  // A dashboard's 3 000 results of 10 KB each arrive while one write is under way: none replaces
  // another, so folding shrinks nothing. Folded at every hundred waiting updates, the whole doc
  // was encoded 30 times as it grew (465 MB for a 30 MB doc, 6 times the burst's own work).
  const counted = await countingEncodes();
  const name = `burst-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const persistence = counted.persistDoc(name, doc);
  expect(await persistence.whenLoaded).toBe(true);
  const map = doc.getMap<string>("results");
  const before = counted.encoded();
  for (let i = 0; i < 3000; i++) map.set(`k${i}`, `${i}`.padEnd(VALUE, "x"));
  const size = Y.encodeStateAsUpdate(doc).byteLength;
  expect(counted.encoded() - before).toBeGreaterThan(0); // it did fold (what waits stays bounded)
  expect(counted.encoded() - before).toBeLessThan(2 * size);
  await persistence.destroy();
  // What waited still reads back as the doc.
  let back = new Y.Doc();
  for (let i = 0; i < 50 && back.getMap("results").size < 3000; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    back = new Y.Doc();
    for (const u of (await storedBytes(name)).updates) Y.applyUpdate(back, u);
  }
  expect(back.getMap("results").size).toBe(3000);
  expect(back.getMap("results").get("k2999")).toBe("2999".padEnd(VALUE, "x"));
}, 20_000);

it("a doc read back from storage is not re-encoded for a burst of small updates: a fold needs what waits to outgrow it", async () => {
  // A reload of a 10 MB doc, then a dashboard's 300 claims (small updates) while a write is under
  // way. Folding them into the doc's state wrote the whole doc again in place of 300 small updates.
  const name = `reload-${Math.random().toString(36).slice(2)}`;
  const first = new Y.Doc();
  const earlier = persistDoc(name, first);
  await earlier.whenLoaded;
  first.transact(() => {
    for (let i = 0; i < 1000; i++) first.getMap<string>("results").set(`k${i}`, `${i}`.padEnd(VALUE, "x"));
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await earlier.destroy();
  first.destroy();
  const counted = await countingEncodes();
  const doc = new Y.Doc();
  const persistence = counted.persistDoc(name, doc);
  expect(await persistence.whenLoaded).toBe(true);
  expect(doc.getMap("results").size).toBe(1000);
  const before = counted.encoded();
  for (let i = 0; i < 300; i++) doc.getMap<string>("claims").set(`k${i}`, `claim ${i}`);
  expect(counted.encoded() - before).toBe(0);
  await persistence.destroy();
});

it("a merge counts the doc's state it writes, not what it read: a hung write after it still folds at a hundred rewrites", async () => {
  // A polled 10 KB result rewritten 600 times, each write its own record, is 6 MB of records for a
  // 10 KB doc. The merge that follows read them all and took their sum for the state's size, so a
  // hung write later kept 12 MB of rewrites waiting before it folded any.
  const name = `merged-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc);
  expect(await persistence.whenLoaded).toBe(true);
  const map = doc.getMap<string>("m");
  for (let i = 0; i < 600; i++) {
    map.set("v", `${i}`.padEnd(VALUE, "r"));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // The merge (a second after the 500th record) leaves the doc's state and what came after it.
  let stored = await storedBytes(name);
  for (let i = 0; i < 150 && stored.updates.length > 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    stored = await storedBytes(name);
  }
  expect(stored.updates.length).toBeLessThanOrEqual(20);
  const hang = await holdUpdates(name);
  map.set("v", "a");
  await new Promise((resolve) => setTimeout(resolve, 20)); // a write is now under way, held
  for (let i = 0; i < 500; i++) map.set("v", `${i}`.padEnd(VALUE, "x"));
  await hang.release();
  let after = await storedBytes(name);
  for (let i = 0; i < 50 && after.updates.length < stored.updates.length + 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    after = await storedBytes(name);
  }
  expect(after.bytes - stored.bytes).toBeLessThan(150 * VALUE);
  const back = new Y.Doc();
  after.updates.forEach((u) => Y.applyUpdate(back, u));
  expect(back.getMap("m").get("v")).toBe(`${499}`.padEnd(VALUE, "x"));
  await persistence.destroy();
});
