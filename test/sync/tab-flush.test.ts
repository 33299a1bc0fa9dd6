/**
 * Issue "time to data", exact inside a browser (the ordering pitfall): a claimant lets go of a
 * key's Web Lock only once every other live tab on the channel has applied what it wrote under the
 * lock — else the browser grants the lock to a tab whose main thread has not yet received the
 * result (nor the claim), which sees the key free and unclaimed and fetches again.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectorsOf } from "../../src/core/connectors.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { FLUSH_WAIT_MS, TAB_LOCK_PREFIX } from "../../src/sync/tab-flush.ts";
import { asBytes, encodeSyncAnswer, inboxName, messageSyncQuery, readSyncStatus, tabChannelName } from "../../src/sync/tab-protocol.ts";
import { browserLocks } from "../harness/browser-locks.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const uniqueName = (): string => `flush-${Math.random().toString(36).slice(2)}`;

function openTab(name: string) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, indexeddb: false });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  const flush = (): Promise<void> => new Promise((resolve) => connectorsOf(doc)[0]!.flush!(resolve));
  return { doc, map: doc.getMap<string>("m"), conn, flush };
}

/** Starts a flush; `done` turns true once it completes. */
function flushing(tab: ReturnType<typeof openTab>): { done: boolean } {
  const state = { done: false };
  void tab.flush().then(() => (state.done = true));
  return state;
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe("connectTabs flush: the other tabs have what this tab wrote", () => {
  it("completes only once every other live tab applied the write made before it", async () => {
    vi.stubGlobal("navigator", { locks: browserLocks() });
    const name = uniqueName();
    const [a, b, c] = [openTab(name), openTab(name), openTab(name)];
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced, c.conn.whenSynced]);
    a.map.set("result", "r1");
    expect(b.map.get("result")).toBeUndefined(); // still in flight: what a lock grant could overtake
    await a.flush();
    expect(b.map.get("result")).toBe("r1");
    expect(c.map.get("result")).toBe("r1");
  });

  it("a tab alone completes once the lock state shows no other tab, without waiting", async () => {
    vi.stubGlobal("navigator", { locks: browserLocks() });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const a = openTab(uniqueName());
    const f = flushing(a);
    await turns();
    expect(f.done).toBe(true);
  });

  it("a tab that holds its lock but never answers (frozen, hung) delays it by FLUSH_WAIT_MS at most", async () => {
    const name = uniqueName();
    vi.stubGlobal("navigator", { locks: browserLocks([`${TAB_LOCK_PREFIX}${name}#a-frozen-tab`]) });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const a = openTab(name);
    const f = flushing(a);
    await turns();
    vi.advanceTimersByTime(FLUSH_WAIT_MS - 1);
    await turns();
    expect(f.done).toBe(false);
    vi.advanceTimersByTime(1);
    await turns();
    expect(f.done).toBe(true);
  });

  it('a tab of a name that extends this one past a \'#\' ("app#2" beside "app") is not waited for: it never answers here', async () => {
    const name = uniqueName();
    vi.stubGlobal("navigator", { locks: browserLocks([`${TAB_LOCK_PREFIX}${name}#2#its-nonce`]) });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const a = openTab(name);
    const f = flushing(a);
    await turns();
    expect(f.done).toBe(true);
  });

  it("an answer from a tab of an older version (no tab lock, no answerer named) does not stand in for a live tab's", async () => {
    const name = uniqueName();
    vi.stubGlobal("navigator", { locks: browserLocks([`${TAB_LOCK_PREFIX}${name}#a-frozen-tab`]) });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // An older version answers every sync query at once, in the asker's inbox, naming nobody.
    const old = new BroadcastChannel(tabChannelName(name));
    let oldAnswers = 0;
    old.onmessage = (event: MessageEvent) => {
      const status = readSyncStatus(asBytes(event.data)!);
      if (status?.kind !== "query" || !status.inbox) return;
      const inbox = new BroadcastChannel(inboxName(name, status.nonce));
      inbox.postMessage(encodeSyncAnswer(status.nonce, false));
      inbox.close();
      oldAnswers++;
    };
    cleanups.push(() => old.close());
    const a = openTab(name);
    const f = flushing(a);
    for (let i = 0; i < 50 && oldAnswers < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    await turns();
    expect(oldAnswers).toBe(2); // a's handshake query and the flush's
    expect(f.done).toBe(false); // the frozen tab is still owed: counting answers would have let go here
    vi.advanceTimersByTime(FLUSH_WAIT_MS);
    await turns();
    expect(f.done).toBe(true);
  });

  it("an answer names its sender; one without a name still reads as before", () => {
    expect(readSyncStatus(encodeSyncAnswer("q", true, "tab-b"))).toEqual({
      kind: "answer",
      nonce: "q",
      loaded: true,
      inbox: false,
      answerer: "tab-b",
    });
    expect(readSyncStatus(encodeSyncAnswer("q", false))).toEqual({ kind: "answer", nonce: "q", loaded: false, inbox: false });
  });

  it("the flushes of one tick share one round: one query to the tabs for many keys let go at once", async () => {
    vi.stubGlobal("navigator", { locks: browserLocks() });
    const name = uniqueName();
    const [a, b] = [openTab(name), openTab(name)];
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    const post = vi.spyOn(BroadcastChannel.prototype, "postMessage");
    a.map.set("result", "r1");
    await Promise.all(Array.from({ length: 50 }, () => a.flush()));
    const queries = post.mock.calls.filter(([frame]) => asBytes(frame)?.[0] === messageSyncQuery);
    expect(queries).toHaveLength(1);
    expect(b.map.get("result")).toBe("r1");
  });

  it("destroy completes a flush under way", async () => {
    const name = uniqueName();
    vi.stubGlobal("navigator", { locks: browserLocks([`${TAB_LOCK_PREFIX}${name}#a-frozen-tab`]) });
    const a = openTab(name);
    const f = flushing(a);
    await turns();
    a.conn.destroy();
    await turns();
    expect(f.done).toBe(true);
  });
});
