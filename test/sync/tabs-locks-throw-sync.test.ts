/**
 * connectTabs given a `locks` whose `request` throws at once instead of rejecting (a hand-written
 * wrapper, a polyfill that checks its origin first): that is a refusal, as the store reads it
 * (test/locks-throw-sync.test.ts), not an error out of connectTabs. The tab holds no tab lock, and
 * the IndexedDB writer lock refused, it stores the doc itself, as a tab does where Web Locks are
 * refused (an opaque origin). fake-indexeddb, Node's BroadcastChannel.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import * as Y from "yjs";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { cleanupsAfterEach, idbTurns, storedDoc } from "../harness/indexeddb-records.ts";

const onCleanup = cleanupsAfterEach();

const throwing: LockManagerLike = {
  query: () => Promise.resolve({ held: [], pending: [] }),
  request: () => {
    throw new DOMException("The request was denied.", "SecurityError");
  },
};

it("a locks that throws from request: connectTabs returns, and the tab stores the doc as the writer", async () => {
  const name = `throwing-locks-${Math.random().toString(36).slice(2)}`;
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, locks: throwing });
  onCleanup(() => (conn.destroy(), doc.destroy()));
  await conn.whenSynced;
  doc.getMap("m").set("k", "stored");
  await idbTurns(16);
  expect((await storedDoc(name)).getMap("m").get("k")).toBe("stored");
});
