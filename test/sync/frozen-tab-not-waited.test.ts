/**
 * Issue "time to data": a tab counts the other tabs of its channel by their tab locks (each
 * connectTabs holds one for its life) and waits for an answer from each — a new tab before its
 * first claim, a claimant before it lets a key's lock go — bounded by 250 ms for a tab that cannot
 * answer. A page the browser freezes (Chrome freezes background tabs: `freeze` on its document,
 * its tasks held until `resume`) cannot; it held its tab lock all the same, so every tab opened
 * beside it, and every flush, waited out the whole bound. It now lets its tab lock go at `freeze`,
 * as it lets the store's lock and the writer lock go, and holds it again at `resume`.
 *
 * Tabs of one browser under Node: FakeLocks, BroadcastChannels of each page whose messages wait
 * while the page is frozen (page-channels.ts), each page's own document for its lifecycle events,
 * fake setTimeout (the bound never runs out here unless told to).
 */
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { connectorsOf } from "../../src/core/connectors.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { TAB_LOCK_PREFIX } from "../../src/sync/tab-flush.ts";
import { pageChannels } from "./page-channels.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Turns of the real event loop (channel messages, lock grants), no fake timer advanced. */
const loopTurns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

function setUp() {
  const name = `frozen-tab-${Math.random().toString(36).slice(2)}`;
  const locks = new FakeLocks();
  const channels = pageChannels();
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const open = (tag: string) => {
    vi.stubGlobal("navigator", { locks: locks.forTab(tag) });
    const document = new EventTarget();
    vi.stubGlobal("document", document);
    const doc = new Y.Doc();
    const conn = channels.as(tag, () => connectTabs(doc, { name, indexeddb: false }));
    cleanups.push(() => (conn.destroy(), doc.destroy()));
    const synced = { done: false };
    void conn.whenSynced.then(() => (synced.done = true));
    return {
      synced,
      map: doc.getMap("m"),
      holdsTabLock: () => locks.heldBy(tag).some((lock) => lock.startsWith(TAB_LOCK_PREFIX)),
      /** A flush, as a claimant runs before it lets a key's lock go; `done` once it completes. */
      flush: () => {
        const state = { done: false };
        connectorsOf(doc)[0]!.flush!(() => (state.done = true));
        return state;
      },
      freeze: () => (document.dispatchEvent(new Event("freeze")), channels.busy(tag)),
      resume: () => (channels.free(tag), document.dispatchEvent(new Event("resume"))),
    };
  };
  return { open, channels };
}

it("a tab opened beside a frozen one is in sync without waiting for its answer; a live tab's flush does not wait for it either", async () => {
  const { open } = setUp();
  const frozen = open("A");
  await loopTurns();
  expect(frozen.synced.done).toBe(true); // alone
  frozen.freeze();
  await loopTurns();
  expect(frozen.holdsTabLock()).toBe(false); // still held without the fix
  const opened = open("B");
  await loopTurns();
  expect(opened.synced.done).toBe(true); // waited for the 250 ms bound without the fix
  opened.map.set("written", "while A is frozen");
  const flush = opened.flush();
  await loopTurns();
  expect(flush.done).toBe(true);
});

it("resumed, the page holds its tab lock again and counts once more: a flush waits for its answer, and completes with it", async () => {
  const { open, channels } = setUp();
  const page = open("A");
  const other = open("B");
  await loopTurns();
  page.freeze();
  await loopTurns();
  page.resume();
  await loopTurns();
  expect(page.holdsTabLock()).toBe(true);
  // Busy (a long task), not frozen: it holds its lock, so the flush waits for its answer.
  channels.busy("A");
  other.map.set("written", "while A is busy");
  const flush = other.flush();
  await loopTurns();
  expect(flush.done).toBe(false);
  channels.free("A");
  await loopTurns();
  expect(flush.done).toBe(true);
  expect(page.map.get("written")).toBe("while A is busy");
});
