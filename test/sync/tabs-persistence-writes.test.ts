import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs } from "../../src/sync/index.ts";

/**
 * IndexedDB writes per doc update: a dashboard's results come one task each, and each was written
 * in a transaction of its own, which IndexedDB runs one at a time (a thousand results queued a
 * thousand). While one write is under way the updates that follow wait and go in the next write,
 * merged: nothing is durable sooner either way (a write queued behind another commits after it,
 * and a crash aborts both), and every update still reaches the database.
 */
let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const uniqueName = (): string => `persist-writes-${Math.random().toString(36).slice(2)}`;
const N = 100;

function openTab(name: string) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  return { doc, conn, map: doc.getMap<unknown>("m") };
}

/** Counts the updates added to IndexedDB from now on. */
function countAdds(): () => number {
  let adds = 0;
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    adds++;
    return add.apply(this, args);
  });
  return () => adds;
}

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("IndexedDB writes per update (connectTabs)", () => {
  it("updates made while a write is under way go in one write, not one each, and all of them are read back", async () => {
    const name = uniqueName();
    const a = openTab(name);
    await a.conn.whenSynced;
    const adds = countAdds();
    // Ten tasks of ten results, each result a doc transaction of its own.
    for (let i = 0; i < N; i++) {
      a.map.set(`result-${i}`, { n: i });
      if (i % 10 === 9) await nextTask();
    }
    a.conn.destroy();
    a.doc.destroy();
    expect(adds()).toBeLessThanOrEqual(N / 5);

    const b = openTab(name);
    await b.conn.whenSynced;
    for (let i = 0; i < N; i++) expect(b.map.get(`result-${i}`)).toEqual({ n: i });
  });

  it("an update waiting for the write under way is written at once when the page goes away", async () => {
    const page = new EventTarget();
    vi.stubGlobal("addEventListener", page.addEventListener.bind(page));
    vi.stubGlobal("removeEventListener", page.removeEventListener.bind(page));
    const name = uniqueName();
    const a = openTab(name);
    await a.conn.whenSynced;
    const adds = countAdds();
    a.map.set("first", 1);
    a.map.set("waiting", 2);
    expect(adds()).toBe(1);
    page.dispatchEvent(new Event("pagehide"));
    expect(adds()).toBe(2);
  });
});
