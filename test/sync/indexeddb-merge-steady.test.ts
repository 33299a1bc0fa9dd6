/**
 * IndexedDB records stay bounded under a steady stream of updates. Past 500 stored updates they
 * are merged a second after the last write, as y-indexeddb does; each write put the merge off
 * again, so updates that never pause for a second (heartbeats of requests in flight in a few
 * tabs, against a host that hangs; a dashboard's staggered polls) were never merged: the database
 * grew by a record per update for as long as they went on, and the next load read every one.
 * Once the records pass twice that count, a merge already due is no longer put off. Real
 * fake-indexeddb; fake timers for the merge's delay only.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { persistDoc } from "../../src/sync/indexeddb-persistence.ts";
import { idbTurns, storedDoc, storedUpdates } from "../harness/indexeddb-records.ts";

afterEach(() => vi.useRealTimers());

it("updates twice a second for ten minutes are merged while they go on: the stored records stay bounded", async () => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  const name = `merge-steady-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const persistence = persistDoc(name, doc);
  await idbTurns();
  expect(await persistence.whenLoaded).toBe(true);
  const beats = doc.getMap<number>("heartbeats");
  for (let i = 0; i < 1200; i++) {
    beats.set("replica-a", i);
    await idbTurns();
    await vi.advanceTimersByTimeAsync(500);
  }
  await idbTurns(20);
  expect((await storedUpdates(name)).length).toBeLessThanOrEqual(1001);
  await persistence.destroy();
  // Nothing merged away is lost: the database reads back as the doc.
  const back = await storedDoc(name);
  expect(back.getMap("heartbeats").get("replica-a")).toBe(1199);
});
