/**
 * A doc that reads no IndexedDB where there is one (`indexeddb: false`: the SharedWorker's
 * standby, or an app's choice) holds what the database holds only once a tab that read it has
 * sent its state. It answered every sync query "loaded" from the start: a tab opening in the
 * instant before the standby had the live worker's state (the worker busy) took the standby's
 * empty doc for all there is, was in sync without reading IndexedDB, and sent again the request
 * whose result the worker held. Real Y.Docs, connectTabs and BroadcastChannel, fake-indexeddb;
 * a "busy" page is one whose channel messages are held until it is free (page-channels.ts).
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { fakeStorage } from "./boot-fakes.ts";
import { pageChannels, slowTab } from "./page-channels.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
});

const REQ = { url: "https://api.example.test/fresh" };
const poll = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
};
/** Lets every promise reaction queued by a delivered message run. */
const drain = () => new Promise((r) => setImmediate(r));

const MARK = "fresh-result-1";

/** A replica that persists (the live worker's part); `fetched` once its result of REQ is in IndexedDB. */
function persisting(name: string, host: Host, locks: FakeLocks) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, snapshotBytes: 0 });
  const store = createSharedFetchStore({ doc, fetch: host.fetchAs("worker"), locks: locks.forTab("worker"), settleMs: 0 });
  const destroy = () => (store.destroy(), tabs.destroy(), doc.destroy());
  cleanups.push(destroy);
  const fetched = (async () => {
    await expect(store.ensure(REQ)).resolves.toMatchObject({ status: "success", data: { v: MARK } });
    await vi.waitFor(async () => expect(await indexedDbText(name)).toContain(MARK), { timeout: 3000, interval: 10 });
  })();
  return { doc, tabs, store, fetched, destroy };
}

/** `indexeddb: false`, as the standby's connectTabs. */
function unread(name: string) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  cleanups.push(() => (tabs.destroy(), doc.destroy()));
  return { doc, tabs };
}

function setUp() {
  vi.stubGlobal("localStorage", fakeStorage());
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: MARK } });
  return { name: `unread-${Math.random().toString(36).slice(2)}`, host, locks: new FakeLocks(), channels: pageChannels() };
}

it("a standby that has not received the live worker's state yet answers a tab opening then: not loaded, and the tab sends no second request", async () => {
  const { name, host, locks, channels } = setUp();
  const live = channels.as("worker", () => persisting(name, host, locks));
  await live.fetched;
  channels.busy("worker"); // its messages wait: the standby starts, and a tab opens, in that instant
  channels.as("standby", () => unread(name));
  const tab = channels.as("tab", () => slowTab(name, host, locks, "tab", (f) => cleanups.push(f)));
  const got = tab.store.ensure(REQ);
  await poll(() => channels.answered("tab")); // the standby's answer
  await drain();
  expect(tab.seen.synced).toBe(false);
  channels.free("worker");
  await expect(got).resolves.toMatchObject({ status: "success", data: { v: MARK } });
  expect(host.calls.map((c) => c.from)).toEqual(["worker"]);
});

it("a standby that starts while a tab waits for its sync, the live worker busy, does not tell that tab it is loaded in its own query", async () => {
  const { name, host, locks, channels } = setUp();
  const live = channels.as("worker", () => persisting(name, host, locks));
  await live.fetched;
  channels.busy("worker");
  const tab = channels.as("tab", () => slowTab(name, host, locks, "tab", (f) => cleanups.push(f)));
  const got = tab.store.ensure(REQ);
  channels.as("standby", () => unread(name));
  await poll(() => channels.answered("tab", "query")); // the standby's handshake ends with its query
  await drain();
  expect(tab.seen.synced).toBe(false);
  channels.free("worker");
  await expect(got).resolves.toMatchObject({ status: "success", data: { v: MARK } });
  expect(host.calls.map((c) => c.from)).toEqual(["worker"]);
});

it("a standby that has the live worker's state answers loaded: a tab opening while the worker is busy is in sync from it alone", async () => {
  const { name, host, locks, channels } = setUp();
  const live = channels.as("worker", () => persisting(name, host, locks));
  await live.fetched;
  const standby = channels.as("standby", () => unread(name));
  await standby.tabs.whenSynced;
  expect(Buffer.from(Y.encodeStateAsUpdate(standby.doc)).toString("latin1")).toContain(MARK);
  channels.busy("worker");
  const tab = channels.as("tab", () => slowTab(name, host, locks, "tab", (f) => cleanups.push(f)));
  await tab.tabs.whenSynced; // its IndexedDB still unread, the worker silent
  await expect(tab.store.ensure(REQ)).resolves.toMatchObject({ status: "success", data: { v: MARK } });
  expect(host.calls.map((c) => c.from)).toEqual(["worker"]);
});

it("an app's tab with indexeddb: false, open alone, does not answer a tab that persists that it is loaded: that tab reads what IndexedDB holds", async () => {
  const { name, host, locks, channels } = setUp();
  const past = channels.as("worker", () => persisting(name, host, locks));
  await past.fetched;
  past.destroy(); // the visit that fetched is gone; its result stays in IndexedDB
  const alone = channels.as("alone", () => unread(name));
  await alone.tabs.whenSynced;
  const tab = channels.as("tab", () => slowTab(name, host, locks, "tab", (f) => cleanups.push(f)));
  const got = tab.store.ensure(REQ);
  await poll(() => channels.answered("tab"));
  await drain();
  expect(tab.seen.synced).toBe(false);
  tab.release();
  await expect(got).resolves.toMatchObject({ status: "success", data: { v: MARK } });
  expect(host.calls.map((c) => c.from)).toEqual(["worker"]);
});

it("in a browser where nothing was persisted under the name, a tab with indexeddb: false vouches for its doc: a second such tab is in sync on its answer, not after the tabs' wait", async () => {
  vi.stubGlobal("localStorage", fakeStorage()); // no mark: IndexedDB holds nothing of the name
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }); // the wait's bound never ends by itself
  try {
    const name = `unread-${Math.random().toString(36).slice(2)}`;
    unread(name);
    const second = unread(name);
    let synced = false;
    void second.tabs.whenSynced.then(() => (synced = true));
    for (let i = 0; i < 200 && !synced; i++) await drain();
    expect(synced).toBe(true);
  } finally {
    vi.useRealTimers();
  }
});
