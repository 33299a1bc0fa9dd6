/**
 * Issue "time to data", "the store knows when it is in sync": a booting tab is in sync once a tab
 * whose state is complete answered it (no IndexedDB read of its own), or once its IndexedDB is read
 * — and a first visit, where this browser never persisted the doc, does not wait for the database.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs } from "../../src/sync/index.ts";
import { asBytes, messageSyncAnswer, tabChannelName } from "../../src/sync/tab-protocol.ts";
import { fakeStorage, markKey, noOtherReplica, settled, slowIndexedDB } from "./boot-fakes.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
});

const uniqueName = (): string => `boot-${Math.random().toString(36).slice(2)}`;

function openTab(name: string, options: { persisted?: boolean } = {}) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, ...options });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  return { doc, conn, map: doc.getMap<unknown>("m") };
}

describe("connectTabs' boot sync", () => {
  it("a newcomer answered by a tab whose state is complete is in sync without reading IndexedDB, and has its state", async () => {
    const name = uniqueName();
    vi.stubGlobal("localStorage", fakeStorage());
    const a = openTab(name);
    await a.conn.whenSynced;
    a.map.set("result", "r1");

    const slow = slowIndexedDB();
    vi.stubGlobal("indexedDB", slow.factory); // the newcomer's database never opens
    const b = openTab(name);
    await b.conn.whenSynced;
    expect(b.map.get("result")).toBe("r1");
  });

  it("a first visit (nothing persisted under the name) does not wait for IndexedDB; its first write marks the name", async () => {
    const name = uniqueName();
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    vi.stubGlobal("indexedDB", slowIndexedDB().factory);
    const a = openTab(name);
    expect(await settled(a.conn.whenSynced)).toBe(true);
    expect(storage.items.has(markKey(name))).toBe(false);
    a.map.set("claim", "c1");
    expect(storage.items.get(markKey(name))).toBe("1");
  });

  it("without localStorage (a worker) it waits for IndexedDB, unless told `persisted: false` (the mark a tab read for it)", async () => {
    vi.stubGlobal("localStorage", undefined);
    vi.stubGlobal("navigator", noOtherReplica);
    vi.stubGlobal("indexedDB", slowIndexedDB().factory);
    const unknown = openTab(uniqueName());
    const told = openTab(uniqueName(), { persisted: false });
    expect(await settled(told.conn.whenSynced)).toBe(true);
    expect(await settled(unknown.conn.whenSynced)).toBe(false);
  });

  it("`persisted` other than a boolean is refused, naming the value", () => {
    const doc = new Y.Doc();
    expect(() => connectTabs(doc, { name: uniqueName(), persisted: "no" as unknown as boolean })).toThrow(
      new TypeError('connectTabs: `persisted` must be a boolean when given, got "no"'),
    );
  });

  it("once the name was persisted, a tab alone waits for its IndexedDB and finds what the last tab wrote", async () => {
    const name = uniqueName();
    // Marked (an earlier visit wrote): this tab too reads the database before it is in sync.
    vi.stubGlobal("localStorage", fakeStorage({ [markKey(name)]: "1" }));
    vi.stubGlobal("navigator", noOtherReplica);
    const a = openTab(name);
    await a.conn.whenSynced;
    a.map.set("result", "r1");
    a.conn.destroy();
    a.doc.destroy();

    const slow = slowIndexedDB();
    vi.stubGlobal("indexedDB", slow.factory);
    const waiting = openTab(name);
    expect(await settled(waiting.conn.whenSynced)).toBe(false);
    slow.release();
    await waiting.conn.whenSynced;
    expect(waiting.map.get("result")).toBe("r1");
  });

  it("a booting tab's answer does not count until its IndexedDB is read; then its announcement does", async () => {
    const name = uniqueName();
    vi.stubGlobal("localStorage", fakeStorage({ [markKey(name)]: "1" }));
    const slowA = slowIndexedDB();
    vi.stubGlobal("indexedDB", slowA.factory);
    const a = openTab(name); // booting, its database not read yet
    const slowB = slowIndexedDB();
    vi.stubGlobal("indexedDB", slowB.factory);
    // a answers b's query on b's own channel (its inbox), which no one else hears: seen as it is sent.
    const heard = new Promise<void>((resolve) => {
      const post = BroadcastChannel.prototype.postMessage;
      vi.spyOn(BroadcastChannel.prototype, "postMessage").mockImplementation(function (this: BroadcastChannel, data: unknown) {
        post.call(this, data);
        if (this.name.startsWith(`${tabChannelName(name)}#`) && asBytes(data)?.[0] === messageSyncAnswer) resolve();
      });
    });
    const b = openTab(name);
    await heard; // a's answer to b's query went out: "not loaded"
    expect(await settled(b.conn.whenSynced)).toBe(false);
    a.map.set("from-a", 1);
    slowA.release(); // a has read its database: it announces that its state is complete
    await b.conn.whenSynced;
    expect(b.map.get("from-a")).toBe(1);
  });
});
