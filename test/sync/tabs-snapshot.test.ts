/**
 * Issue "time to data": a return visit shows what was recorded at its first render. connectTabs
 * keeps a copy of the doc's state in localStorage (read synchronously, where IndexedDB answers
 * only once open); the copy merges with the database, never stands in for reading it, stays within
 * its size, and a malformed one is dropped without losing anything.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { clearTabsStorage, connectTabs, type TabsOptions } from "../../src/sync/index.ts";
import { fakeStorage, markKey, noOtherReplica, settled, slowIndexedDB } from "./boot-fakes.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const uniqueName = (): string => `snapshot-${Math.random().toString(36).slice(2)}`;
const snapshotKey = (name: string) => `shared-fetch:snapshot:${name}`;

function openTab(name: string, options: Partial<TabsOptions> = {}) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, ...options });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    conn.destroy();
    doc.destroy();
  };
  cleanups.push(close);
  return { doc, conn, map: doc.getMap<unknown>("m"), close };
}

/** A first visit that wrote `entries` and closed (its pending copy written as it went). */
async function firstVisit(name: string, entries: Record<string, unknown>, options: Partial<TabsOptions> = {}) {
  const a = openTab(name, options);
  await a.conn.whenSynced;
  for (const [k, v] of Object.entries(entries)) a.map.set(k, v);
  a.close();
}

describe("connectTabs' copy of the doc in localStorage", () => {
  it("a return visit's doc holds what was recorded before its IndexedDB opens, and still waits for the database to be in sync", async () => {
    const name = uniqueName();
    vi.stubGlobal("localStorage", fakeStorage());
    vi.stubGlobal("navigator", noOtherReplica);
    await firstVisit(name, { result: "r1" });

    const slow = slowIndexedDB();
    vi.stubGlobal("indexedDB", slow.factory);
    const again = openTab(name);
    expect(again.map.get("result")).toBe("r1"); // synchronously, at connect
    expect(await settled(again.conn.whenSynced)).toBe(false); // the copy is no database read
    slow.release();
    await again.conn.whenSynced;
    expect(again.map.get("result")).toBe("r1");
  });

  it("an older copy merges with what IndexedDB holds: the newer value wins once the database is read", async () => {
    const name = uniqueName();
    // Marked as persisted: each earlier tab reads its database first, so r2 is written over r1.
    const storage = fakeStorage({ [markKey(name)]: "1" });
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    await firstVisit(name, { result: "r1" });
    const r1 = storage.items.get(snapshotKey(name))!;
    // A later tab writes r2 into the database, and the copy is put back as r1 left it (a tab of
    // that later visit closed before its copy's write).
    await firstVisit(name, { result: "r2" }, { snapshotBytes: 0 });
    storage.items.set(snapshotKey(name), r1);

    const slow = slowIndexedDB();
    vi.stubGlobal("indexedDB", slow.factory);
    const again = openTab(name);
    expect(again.map.get("result")).toBe("r1");
    slow.release();
    await again.conn.whenSynced;
    expect(again.map.get("result")).toBe("r2");
  });

  it("writes at most once a second while the doc changes, and at once when the page goes away", async () => {
    const name = uniqueName();
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    const a = openTab(name);
    await a.conn.whenSynced;
    vi.useFakeTimers();
    const writes = vi.spyOn(storage, "setItem");
    const copies = () => writes.mock.calls.filter(([key]) => key === snapshotKey(name)).length;
    a.map.set("n", 1);
    a.map.set("n", 2);
    vi.advanceTimersByTime(999);
    expect(copies()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(copies()).toBe(1);
    a.map.set("n", 3);
    a.close(); // what closes the connection writes the change still waiting
    expect(copies()).toBe(2);
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Buffer.from(storage.items.get(snapshotKey(name))!, "base64"));
    expect(copy.getMap("m").get("n")).toBe(3);
  });

  it("a change from another tab starts no write here: the tab that made it keeps the copy", async () => {
    const name = uniqueName();
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    const a = openTab(name);
    const b = openTab(name);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    const writes = vi.spyOn(storage, "setItem");
    b.map.set("result", "r1");
    await vi.waitFor(() => expect(a.map.get("result")).toBe("r1"));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(writes.mock.calls.filter(([key]) => key === snapshotKey(name))).toHaveLength(1);
  });

  it("a state larger than snapshotBytes is not kept, and removes the older copy rather than leave it behind", async () => {
    const name = uniqueName();
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    await firstVisit(name, { result: "r1" });
    expect(storage.items.has(snapshotKey(name))).toBe(true);

    await firstVisit(name, { big: "x".repeat(2000) }, { snapshotBytes: 1000 });
    expect(storage.items.has(snapshotKey(name))).toBe(false);
  });

  it("snapshotBytes defaults to 64 KiB (README, Usage): a state just under it is copied, one just over it is not", async () => {
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    const under = uniqueName();
    await firstVisit(under, { big: "x".repeat(64 * 1024 - 200) });
    expect(storage.items.has(snapshotKey(under))).toBe(true);
    const over = uniqueName();
    await firstVisit(over, { big: "x".repeat(64 * 1024 + 200) });
    expect(storage.items.has(snapshotKey(over))).toBe(false);
  });

  it("keeps no copy without IndexedDB persistence or with snapshotBytes: 0", async () => {
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    const off = uniqueName();
    const none = uniqueName();
    await firstVisit(off, { result: "r1" }, { indexeddb: false });
    await firstVisit(none, { result: "r1" }, { snapshotBytes: 0 });
    expect([...storage.items.keys()].filter((k) => k.startsWith("shared-fetch:snapshot:"))).toEqual([]);
  });

  it("snapshotBytes: 0 keeps no copy, not even one an earlier visit left (README: '0 keeps no copy')", async () => {
    const name = uniqueName();
    const storage = fakeStorage({ [markKey(name)]: "1" });
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    await firstVisit(name, { result: "r1" });
    expect(storage.items.has(snapshotKey(name))).toBe(true);
    const off = openTab(name, { snapshotBytes: 0 });
    expect(storage.items.has(snapshotKey(name))).toBe(false);
    await off.conn.whenSynced;
    expect(off.map.get("result")).toBe("r1"); // the database still has it
    off.close();
  });

  it("a malformed copy is dropped with a warning naming it; the tab connects and reads IndexedDB as without one", async () => {
    const name = uniqueName();
    // Marked as persisted: the first visit's tab reads (and so writes) its database before it is in sync.
    const storage = fakeStorage({ [markKey(name)]: "1" });
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    await firstVisit(name, { result: "r1" }, { snapshotBytes: 0 });
    storage.items.set(snapshotKey(name), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x01]).toString("base64"));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});

    const again = openTab(name);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`"${snapshotKey(name)}"`), expect.anything());
    expect(storage.items.has(snapshotKey(name))).toBe(false);
    await again.conn.whenSynced;
    expect(again.map.get("result")).toBe("r1");
  });

  it("clearTabsStorage (a logout) removes the copy, the mark and the database: the next visit starts empty", async () => {
    const name = uniqueName();
    const storage = fakeStorage({ [markKey(name)]: "1" });
    vi.stubGlobal("localStorage", storage);
    vi.stubGlobal("navigator", noOtherReplica);
    await firstVisit(name, { result: "r1" });
    expect(storage.items.has(snapshotKey(name))).toBe(true);

    await clearTabsStorage(name);
    expect(storage.items.has(snapshotKey(name))).toBe(false);
    expect(storage.items.has(markKey(name))).toBe(false);
    storage.items.set(markKey(name), "1"); // as if marked again: the next tab reads its database
    const again = openTab(name);
    await again.conn.whenSynced;
    expect(again.map.has("result")).toBe(false);
  });

  it("clearTabsStorage refuses a name that is not a non-empty string, naming it", async () => {
    await expect(clearTabsStorage("")).rejects.toThrow(new TypeError('clearTabsStorage: `name` must be a non-empty string, got ""'));
  });

  it.each([
    [-1, "-1"],
    [1.5, "1.5"],
    [Number.NaN, "NaN"],
    ["256" as unknown as number, '"256"'], // quoted: "got 256" would read as a valid value
  ])("snapshotBytes %s is refused, naming the value", (bad, shown) => {
    expect(() => connectTabs(new Y.Doc(), { name: uniqueName(), snapshotBytes: bad })).toThrow(
      new TypeError(`connectTabs: \`snapshotBytes\` must be a whole number of bytes ≥ 0 when given, got ${shown}`),
    );
  });
});
