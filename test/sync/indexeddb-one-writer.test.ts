/**
 * One browser stores each update in IndexedDB once. Every tab's doc hears every update (its own,
 * the other tabs' over the channel, each tab's devices'), and each tab stored what it heard: K tabs
 * wrote K copies of each. Now the tab that holds the name's writer lock (Web Locks) stores them
 * and the others only read; a tab granted the lock after the writer crashed or its storage failed
 * writes its whole state, so what the writer never stored still reaches the database.
 *
 * Three tabs of one browser (fake-indexeddb, Node's BroadcastChannel, one in-memory lock manager
 * whose crash(tab) frees a tab's locks as the browser does), a device through a real y-websocket
 * server on 127.0.0.1. A crash is a tab whose IndexedDB writes never commit, its locks freed.
 */
import "fake-indexeddb/auto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectPeers, connectTabs } from "../../src/sync/index.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { cleanupsAfterEach, idbTurns, storedDoc } from "../harness/indexeddb-records.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => void (server = await startSyncServer()));
afterAll(() => server.close());

const onCleanup = cleanupsAfterEach();

const uniqueName = (): string => `one-writer-${Math.random().toString(36).slice(2)}`;
type Tab = { tag: string; doc: Y.Doc; map: Y.Map<unknown>; page: EventTarget; db: () => IDBDatabase | undefined; close: () => void };

/** A tab on `locks.forTab(tag)`; `db` is its own IndexedDB connection, to tell its writes apart. */
function openTab(name: string, locks: FakeLocks, tag: string, peers?: string, own: object = locks.forTab(tag)): Tab {
  vi.stubGlobal("navigator", { locks: own });
  // Each tab's own page events (pagehide, pageshow).
  const page = new EventTarget();
  vi.stubGlobal("addEventListener", page.addEventListener.bind(page));
  vi.stubGlobal("removeEventListener", page.removeEventListener.bind(page));
  const open = vi.spyOn(indexedDB, "open");
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  const request = open.mock.results[0]?.value as IDBOpenDBRequest;
  open.mockRestore();
  const device = peers ? connectPeers(doc, { url: server.url, room: peers, WebSocketPolyfill: WebSocket }) : undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    device?.destroy();
    conn.destroy();
    doc.destroy();
  };
  onCleanup(close);
  return { tag, doc, map: doc.getMap("m"), page, db: () => (request.readyState === "done" ? request.result : undefined), close };
}

/** Counts the updates added to IndexedDB; those through a connection in `lost` never commit (a crash). */
function watchAdds(lost: Set<IDBDatabase | undefined>) {
  const added: IDBDatabase[] = [];
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    const db = this.transaction.db;
    if (lost.has(db)) return {} as IDBRequest<IDBValidKey>; // never answers: the tab died first
    added.push(db);
    return add.apply(this, args);
  });
  return added;
}

/** What a tab opened now would load: the database's updates applied to a fresh doc. */
async function loadedMap(name: string): Promise<Record<string, unknown>> {
  return (await storedDoc(name)).getMap("m").toJSON();
}

/** Three tabs, read their database and settled on a writer: the tab that holds the lock. */
async function threeTabs(name: string, locks: FakeLocks, peers?: string, own?: (tag: string) => object) {
  const tabs = ["a", "b", "c"].map((tag) => openTab(name, locks, tag, peers, own?.(tag)));
  await vi.waitFor(() => expect(tabs.every((t) => t.db())).toBe(true));
  const writerLock = WRITER_LOCK_PREFIX + name;
  await vi.waitFor(() => expect(tabs.some((t) => locks.heldBy(t.tag).includes(writerLock))).toBe(true));
  const writer = tabs.find((t) => locks.heldBy(t.tag).includes(writerLock))!;
  return { tabs, writer, others: tabs.filter((t) => t !== writer) };
}

const everywhere = (tabs: Tab[], key: string, value: unknown) =>
  vi.waitFor(() => tabs.forEach((t) => expect(t.map.get(key)).toEqual(value)));

it("three tabs and a device: each update is stored once, not once per tab, and a tab opened later loads all of it", async () => {
  const name = uniqueName();
  const room = `room-${name}`;
  const locks = new FakeLocks();
  const { tabs } = await threeTabs(name, locks, room);
  const device = new Y.Doc();
  const link = connectPeers(device, { url: server.url, room, WebSocketPolyfill: WebSocket });
  onCleanup(() => (link.destroy(), device.destroy()));
  await link.whenSynced;
  await idbTurns();
  const added = watchAdds(new Set());
  let updates = 0;
  for (let i = 0; i < 4; i++) {
    for (const tab of tabs) {
      tab.map.set(`${tab.tag}-${i}`, i);
      updates++;
      await everywhere(tabs, `${tab.tag}-${i}`, i);
      await idbTurns();
    }
    device.getMap("m").set(`device-${i}`, i);
    updates++;
    await everywhere(tabs, `device-${i}`, i);
    await idbTurns();
  }
  // 16 updates: 48 records before, each tab storing every one it heard.
  expect(added.length).toBeLessThanOrEqual(updates);
  expect(added.length).toBeGreaterThan(0);
  const want = tabs[0]!.map.toJSON();
  expect(Object.keys(want)).toHaveLength(updates);
  const during = added.length;
  for (const tab of tabs) tab.close();
  await idbTurns();
  // Closing, each tab that is not the writer stores what it wrote itself (the writer may close
  // before it hears it, test/sync/indexeddb-non-writer-leaves.test.ts): one record each, two here.
  expect(added.length - during).toBe(2);
  expect(await loadedMap(name)).toEqual(want);
});

it("a tab that crashes right after posting an update it never stored: the writer stores it", async () => {
  const name = uniqueName();
  const locks = new FakeLocks();
  const { tabs, others } = await threeTabs(name, locks);
  const sender = others[0]!;
  const lost = new Set([sender.db()]);
  watchAdds(lost);
  sender.map.set("posted", "then crashed");
  await everywhere(tabs, "posted", "then crashed");
  locks.crash(sender.tag);
  sender.close();
  await idbTurns();
  for (const tab of tabs) tab.close();
  expect(await loadedMap(name)).toEqual({ posted: "then crashed" });
});

it("the writer crashes before its write of an update commits: the tab granted the lock next writes its whole state", async () => {
  const name = uniqueName();
  const locks = new FakeLocks();
  const { tabs, writer, others } = await threeTabs(name, locks);
  const lost = new Set([writer.db()]);
  const added = watchAdds(lost);
  others[0]!.map.set("heard", "by every tab");
  await everywhere(tabs, "heard", "by every tab");
  await idbTurns();
  expect(added).toEqual([]); // the writer's write hangs; no other tab stored it
  locks.crash(writer.tag);
  writer.close();
  await vi.waitFor(() => expect(added.length).toBeGreaterThan(0));
  await idbTurns();
  expect(await loadedMap(name)).toEqual({ heard: "by every tab" });
  // Whoever holds it now stores what comes next.
  others[1]!.map.set("after", "the crash");
  await everywhere(others, "after", "the crash");
  await idbTurns();
  for (const tab of others) tab.close();
  expect(await loadedMap(name)).toEqual({ heard: "by every tab", after: "the crash" });
});

it("the writer's storage refuses a write: it stops persisting and lets the lock go, and the next tab stores the doc", async () => {
  const name = uniqueName();
  const locks = new FakeLocks();
  const { tabs, writer, others } = await threeTabs(name, locks);
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    if (this.transaction.db === writer.db()) throw new DOMException("full", "QuotaExceededError");
    return add.apply(this, args);
  });
  others[0]!.map.set("refused", "by the writer's storage");
  await everywhere(tabs, "refused", "by the writer's storage");
  await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining("refused a write"), expect.anything()));
  await vi.waitFor(() => expect(locks.heldBy(writer.tag)).not.toContain(WRITER_LOCK_PREFIX + name));
  await vi.waitFor(async () => expect(await loadedMap(name)).toEqual({ refused: "by the writer's storage" }));
});

it("the writer's page goes into the back/forward cache: it lets the lock go, another tab stores, and shown again it queues for it", async () => {
  const name = uniqueName();
  const locks = new FakeLocks();
  const { writer, others } = await threeTabs(name, locks);
  const writerLock = WRITER_LOCK_PREFIX + name;
  writer.page.dispatchEvent(new Event("pagehide"));
  await vi.waitFor(() => expect(others.some((t) => locks.heldBy(t.tag).includes(writerLock))).toBe(true));
  const added = watchAdds(new Set());
  others[0]!.map.set("while", "hidden");
  await everywhere(others, "while", "hidden");
  await idbTurns();
  expect(added).toHaveLength(1);
  expect(added[0]).not.toBe(writer.db());
  writer.page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  for (const tab of others) tab.close();
  await vi.waitFor(() => expect(locks.heldBy(writer.tag)).toContain(writerLock));
  writer.map.set("back", "again");
  await idbTurns();
  writer.close();
  expect(await loadedMap(name)).toEqual({ while: "hidden", back: "again" });
});

it("Web Locks that refuse every request (an opaque origin): a tab stores what it hears, as without them", async () => {
  const name = uniqueName();
  const refused = async () => Promise.reject(new DOMException("no locks here", "SecurityError"));
  vi.stubGlobal("navigator", { locks: { request: refused, query: async () => ({ held: [] }) } });
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name });
  onCleanup(() => (conn.destroy(), doc.destroy()));
  await conn.whenSynced;
  await idbTurns();
  doc.getMap("m").set("kept", "without locks");
  await idbTurns();
  conn.destroy();
  expect(await loadedMap(name)).toEqual({ kept: "without locks" });
});

/**
 * A page's locks as the browser runs them for a frozen page (the back/forward cache): a lock is
 * granted to its request still, but the callback, a task of the page, runs only once it is shown.
 * `asked` lists the tabs in the order they asked for the writer lock.
 */
function freezableLocks(locks: FakeLocks, asked: string[]) {
  const frozen = new Set<string>();
  const own = (tag: string) => {
    const page = locks.forTab(tag);
    return {
      ...page,
      request: (name: string, options: LockOptions, callback: (lock: unknown) => Promise<unknown>) => {
        if (name.startsWith(WRITER_LOCK_PREFIX)) asked.push(tag);
        // Frozen, the page is not shown again here: its callback never runs, the lock stays granted.
        return page.request(name, options, (lock) => (frozen.has(tag) ? new Promise(() => {}) : callback(lock)));
      },
    };
  };
  return { own, freeze: (tag: string) => void frozen.add(tag) };
}

it.each(["goes into the back/forward cache", "destroys its doc, its page then frozen"])(
  "a tab queued for the lock that %s withdraws its request: the writer's lock passes to a live tab",
  async (how) => {
    const name = uniqueName();
    const locks = new FakeLocks();
    const asked: string[] = [];
    const pages = freezableLocks(locks, asked);
    const { tabs, writer, others } = await threeTabs(name, locks, undefined, pages.own);
    const writerLock = WRITER_LOCK_PREFIX + name;
    // The first in the queue behind the writer leaves; the other stays live.
    const leaving = others.find((t) => t.tag === asked.find((tag) => tag !== writer.tag))!;
    const live = others.find((t) => t !== leaving)!;
    if (how.startsWith("goes")) leaving.page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
    else leaving.close();
    pages.freeze(leaving.tag);
    writer.close();
    await vi.waitFor(() => expect(locks.heldBy(live.tag)).toContain(writerLock));
    expect(locks.heldBy(leaving.tag)).toEqual([]);
    // The live tab stores what it hears from now on.
    live.map.set("stored by", "the live tab");
    await idbTurns();
    expect(await loadedMap(name)).toEqual({ "stored by": "the live tab" });
    for (const tab of tabs) tab.close();
  },
);
