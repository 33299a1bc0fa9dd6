/**
 * One tab of a browser stores the doc in IndexedDB, the holder of the name's writer lock; the
 * others store nothing and leave their updates to it, over the channel. A writer that closed or
 * crashed before it heard one stored it nowhere: a window closing all its tabs at once, the writer
 * crashing while the only other tab is in the back/forward cache or frozen. Now a tab that is not
 * the writer stores what it wrote itself (its own updates, not those it heard) as it leaves:
 * pagehide, freeze or destroy — one record, the doc's changes since its first such update, and
 * nothing when it wrote nothing since it last did.
 *
 * Tabs of one browser: fake-indexeddb, FakeLocks (crash(tab) frees a tab's locks as the browser
 * does), BroadcastChannels whose messages wait while their page is busy (page-channels.ts): the
 * writer that never hears an update is one whose main thread never got to it.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { cleanupsAfterEach, idbTurns, storedDoc } from "../harness/indexeddb-records.ts";
import { pageChannels } from "./page-channels.ts";

const onCleanup = cleanupsAfterEach();

type Leave = "pagehide" | "freeze" | "destroy";

function setUp() {
  const name = `non-writer-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const channels = pageChannels();
  // The database connection of each tab, to count what each one adds.
  const connections = new Map<IDBDatabase, string>();
  const adds: string[] = [];
  const add = IDBObjectStore.prototype.add;
  vi.spyOn(IDBObjectStore.prototype, "add").mockImplementation(function (this: IDBObjectStore, ...args: Parameters<typeof add>) {
    adds.push(connections.get(this.transaction.db) ?? "?");
    return add.apply(this, args);
  });
  const open = (tag: string) => {
    vi.stubGlobal("navigator", { locks: locks.forTab(tag) });
    const page = new EventTarget();
    vi.stubGlobal("addEventListener", page.addEventListener.bind(page));
    vi.stubGlobal("removeEventListener", page.removeEventListener.bind(page));
    const document = new EventTarget();
    vi.stubGlobal("document", document);
    const opening = vi.spyOn(indexedDB, "open");
    const doc = new Y.Doc();
    const conn = channels.as(tag, () => connectTabs(doc, { name, snapshotBytes: 0 }));
    const request = opening.mock.results[0]?.value as IDBOpenDBRequest;
    opening.mockRestore();
    request.addEventListener("success", () => connections.set(request.result, tag));
    let closed = false;
    const close = () => void (closed || ((closed = true), conn.destroy(), doc.destroy()));
    onCleanup(close);
    const leave = (how: Leave) => {
      if (how === "pagehide") page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
      else if (how === "freeze") document.dispatchEvent(new Event("freeze"));
      else close();
    };
    const back = () => page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    return { tag, map: doc.getMap("m"), close, leave, back };
  };
  /** A writer A and a tab B queued behind it, both having read the database; `early` runs as B opens. */
  const twoTabs = async (early?: (b: ReturnType<typeof open>) => void) => {
    const a = open("A");
    await vi.waitFor(() => expect(locks.heldBy("A")).toContain(WRITER_LOCK_PREFIX + name));
    if (early) channels.busy("A");
    const b = open("B");
    early?.(b);
    await idbTurns();
    return { a, b };
  };
  return { name, locks, channels, adds, twoTabs };
}

it.each<Leave>(["pagehide", "freeze", "destroy"])(
  "a tab not the writer wrote an update the writer never heard, then on %s the writer crashed: the update is stored",
  async (how) => {
    const { name, locks, channels, twoTabs } = setUp();
    const { a, b } = await twoTabs();
    channels.busy("A"); // its main thread never gets to B's update
    b.map.set("written", "by B");
    b.leave(how);
    await idbTurns();
    locks.crash("A");
    a.close();
    await idbTurns();
    // Stored by nobody without the change: A never heard it, and B left it to A.
    expect((await storedDoc(name)).getMap("m").toJSON()).toEqual({ written: "by B" });
  },
);

it.each<Leave>(["pagehide", "freeze", "destroy"])(
  "a tab not the writer wrote an update before its database had opened, then on %s the writer crashed: the update is stored",
  async (how) => {
    const { name, locks, twoTabs } = setUp();
    // Written as B opens (a first claim made at once), before the open answered: its own update too.
    const { a, b } = await twoTabs((opening) => opening.map.set("written", "by B, opening"));
    b.leave(how);
    await idbTurns();
    locks.crash("A");
    a.close();
    await idbTurns();
    expect((await storedDoc(name)).getMap("m").toJSON()).toEqual({ written: "by B, opening" });
  },
);

it("what it costs: one record per leave after the tab wrote, none for what it only heard or already stored", async () => {
  const { adds, twoTabs } = setUp();
  const { a, b } = await twoTabs();
  const byB = () => adds.filter((tag) => tag === "B").length;
  a.map.set("heard", "from A");
  await vi.waitFor(() => expect(b.map.get("heard")).toBe("from A"));
  await idbTurns();
  b.leave("pagehide"); // heard only: A stored it
  b.back();
  await idbTurns();
  expect(byB()).toBe(0);
  b.map.set("written", "by B, first");
  b.map.set("written", "by B, then");
  await idbTurns();
  b.leave("pagehide");
  await idbTurns();
  expect(byB()).toBe(1); // both updates, once, beside A storing each as it heard it
  b.back();
  b.leave("freeze"); // nothing written since
  await idbTurns();
  expect(byB()).toBe(1);
  expect(adds.filter((tag) => tag === "A").length).toBe(3);
});
