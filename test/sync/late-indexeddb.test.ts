/**
 * An IndexedDB that answers late. README: an open that has not answered after 2 s
 * (IDB_OPEN_WAIT_MS) lets the tab go on without what it stores, and is still used if it answers
 * later. The tab then fetches today's outcome as revision 1 (its doc has read no revision of the
 * key); yesterday's revision-1 record of the same key arrives from the database afterwards. The
 * user must keep today's: within one revision the later request's outcome wins (its `at`), the
 * same on every replica whatever the order records arrive in and whatever their clientIDs. (TanStack's
 * hydrate, likewise, only overwrites a query with newer data.) The clientIDs are chosen so that
 * the former order (revision, seq, then the lane creator's clientID) picked yesterday's.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore, type Snapshot } from "../../src/index.ts";
import { openDocRecords } from "../../src/core/doc-records.ts";
import { IDB_OPEN_WAIT_MS } from "../../src/sync/indexeddb-persistence.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { fakeStorage, markKey, noOtherReplica, slowIndexedDB } from "./boot-fakes.ts";
import { until } from "./wait.ts";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const DAY = 86_400_000;
const URL_R = "https://api.example.test/late";
/** Yesterday's doc outranks today's on clientID alone. */
const HIGH_CLIENT = 2 ** 31;
const LOW_CLIENT = 1;
const uniqueName = (): string => `late-${Math.random().toString(36).slice(2)}`;
const answering = (status: number, body: unknown) =>
  (async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })) as typeof fetch;
const holds = (doc: Y.Doc, text: string): boolean => Buffer.from(Y.encodeStateAsUpdate(doc)).toString("latin1").includes(text);

/** Yesterday's visit: its outcome of URL_R, revision 1, stored in IndexedDB (and the mark set). */
async function pastVisit(name: string, fetch: typeof globalThis.fetch, stored: string): Promise<void> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() - DAY);
  const doc = new Y.Doc();
  doc.clientID = HIGH_CLIENT;
  const tabs = connectTabs(doc, { name, snapshotBytes: 0 });
  await tabs.whenSynced;
  const store = createSharedFetchStore({ doc, fetch, locks: null });
  await store.ensure({ url: URL_R });
  store.destroy();
  tabs.destroy();
  doc.destroy();
  vi.useRealTimers();
  await vi.waitFor(async () => expect(await indexedDbText(name)).toContain(stored));
}

/**
 * Today's visit, its IndexedDB open held back past IDB_OPEN_WAIT_MS: returns the snapshot it got,
 * and the one it shows once the database answered and yesterday's record is in its doc.
 */
async function lateVisit(name: string, fetch: typeof globalThis.fetch, stored: string) {
  const slow = slowIndexedDB();
  vi.stubGlobal("indexedDB", slow.factory);
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  const doc = new Y.Doc();
  doc.clientID = LOW_CLIENT;
  const tabs = connectTabs(doc, { name, snapshotBytes: 0 });
  const store = createSharedFetchStore({ doc, fetch, locks: null });
  try {
    let fetched: Snapshot | undefined;
    void store.ensure({ url: URL_R }).then((snapshot) => (fetched = snapshot));
    await vi.advanceTimersByTimeAsync(IDB_OPEN_WAIT_MS); // the open has not answered: the tab goes on
    // Then the claim's own timers (its settle window): fake time, as long as the request takes.
    while (fetched === undefined) await vi.advanceTimersByTimeAsync(10);
    const loaded = until(doc, "update", () => holds(doc, stored));
    slow.release();
    await loaded;
    await Promise.resolve(); // the deferred cleanup of the contest
    return { fetched, after: store.snapshot({ url: URL_R }) };
  } finally {
    store.destroy();
    tabs.destroy();
    doc.destroy();
  }
}

function setUp(): string {
  vi.spyOn(console, "warn").mockImplementation(() => {}); // "has not opened within 2000 ms"
  vi.stubGlobal("localStorage", fakeStorage());
  vi.stubGlobal("navigator", noOtherReplica);
  return uniqueName();
}

it("a past visit's result that IndexedDB delivers after the 2 s wait never replaces the result fetched meanwhile", async () => {
  const name = setUp();
  await pastVisit(name, answering(200, { v: "yesterday" }), "yesterday");
  expect(localStorage.getItem(markKey(name))).toBe("1"); // so today's tab waits for the database

  const { fetched, after } = await lateVisit(name, answering(200, { v: "today" }), "yesterday");
  expect(fetched.data).toEqual({ v: "today" });
  expect(after).toMatchObject({ status: "success", data: { v: "today" } });
});

it("a past visit's error that IndexedDB delivers late never replaces the error met meanwhile", async () => {
  const name = setUp();
  await pastVisit(name, answering(500, { down: "yesterday" }), "HTTP 500");

  const { fetched, after } = await lateVisit(name, answering(503, { down: "today" }), "HTTP 500");
  expect(fetched.error?.status).toBe(503);
  expect(after).toMatchObject({ status: "error", error: { status: 503 } });
});

it("records of one revision racing: every replica keeps the one with the later `at`, whichever arrives first and whatever the clientIDs", () => {
  const replica = (clientID: number) => {
    const doc = new Y.Doc();
    doc.clientID = clientID;
    return { doc, records: openDocRecords(doc, () => null) };
  };
  const older = replica(HIGH_CLIENT);
  const newer = replica(LOW_CLIENT);
  const legacy = replica(HIGH_CLIENT - 1); // an older version's record: no `at`
  older.records.results.set("k", { rev: 1, data: "yesterday", at: 1_000 });
  newer.records.results.set("k", { rev: 1, data: "today", at: 1_000 + DAY });
  legacy.records.results.set("k", { rev: 1, data: "legacy" });
  older.records.errors.set("k", { rev: 1, message: "yesterday", at: 1_000 });
  newer.records.errors.set("k", { rev: 1, message: "today", at: 1_000 + DAY });
  const states = [older, newer, legacy].map((r) => Y.encodeStateAsUpdate(r.doc));
  // Each replica receives the others' records in its own order.
  Y.applyUpdate(older.doc, states[1]!);
  Y.applyUpdate(older.doc, states[2]!);
  Y.applyUpdate(newer.doc, states[2]!);
  Y.applyUpdate(newer.doc, states[0]!);
  Y.applyUpdate(legacy.doc, states[0]!);
  Y.applyUpdate(legacy.doc, states[1]!);
  for (const r of [older, newer, legacy]) {
    expect(r.records.results.get("k")?.data).toBe("today");
    expect(r.records.errors.get("k")?.message).toBe("today");
    r.records.destroy();
    r.doc.destroy();
  }
});
