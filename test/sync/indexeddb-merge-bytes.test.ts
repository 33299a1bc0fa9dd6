/**
 * IndexedDB stays near the doc's size between merges when a result is rewritten. Merges came
 * only past 500 stored updates, and each rewrite of a result stores the whole new value: a
 * polled result rewritten 150 times put 150 copies in the database (three tabs, each storing
 * every update it hears, reached 57 times the doc's state), and every tab opening read them all.
 * A tab now also merges once what it stored since its last merge passes the doc's state (or
 * 64 KiB, whichever is more). Real fake-indexeddb; fake timers for the merge's delay only.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { persistDoc } from "../../src/sync/indexeddb-persistence.ts";
import { idbTurns, storedDoc, storedUpdates } from "../harness/indexeddb-records.ts";

afterEach(() => vi.useRealTimers());

it("a 20 KiB result polled twice a second: the database stays within a few times the doc's state, and reads back as the doc", async () => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  const name = `merge-bytes-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc);
  await idbTurns();
  expect(await persistence.whenLoaded).toBe(true);
  const results = doc.getMap<{ v: number; body: string }>("results");
  let largest = 0;
  for (let i = 0; i < 150; i++) {
    results.set("polled", { v: i, body: "x".repeat(20 * 1024) });
    await idbTurns();
    await vi.advanceTimersByTimeAsync(500);
    if (i % 10 === 9)
      largest = Math.max(
        largest,
        (await storedUpdates(name)).reduce((n, u) => n + u.byteLength, 0),
      );
  }
  const state = Y.encodeStateAsUpdate(doc).byteLength;
  // Twice the 64 KiB floor written before a merge due is kept, the write under way, the merged state.
  expect(largest).toBeLessThanOrEqual(2 * 64 * 1024 + 2 * state + 2 * 20 * 1024);
  await persistence.destroy();
  const back = await storedDoc(name);
  expect(back.getMap("results").get("polled")).toEqual({ v: 149, body: "x".repeat(20 * 1024) });
});
