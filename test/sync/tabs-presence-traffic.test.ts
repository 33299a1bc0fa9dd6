/**
 * Issue 10 (time to data), presence at boot: tabs opened together each post their own presence
 * once however often it was set in that task, and one post answers the burst of presence queries
 * the other tabs send — where each tab used to answer every query with every state it knew (K²
 * frames of K states). Every tab still learns every other tab's state, and a tab opened later
 * learns them too.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import * as decoding from "lib0/decoding";
import { connectTabs } from "../../src/sync/index.ts";
import { messageAwareness } from "../../src/sync/tab-protocol.ts";
import { until } from "./wait.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.restoreAllMocks();
});

function openTab(name: string) {
  const doc = new Y.Doc();
  const conn = connectTabs(doc, { name, indexeddb: false });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  // What a store does right after connecting: publish its presence field.
  conn.awareness.setLocalStateField("sharedFetch", { replicaId: `r${doc.clientID}` });
  return { doc, conn };
}

/** The client ids an awareness frame carries (y-protocols: count, then id, clock, state per client). */
function clientsOf(frame: Uint8Array): number[] {
  const outer = decoding.createDecoder(frame);
  decoding.readVarUint(outer);
  const inner = decoding.createDecoder(decoding.readVarUint8Array(outer));
  const ids: number[] = [];
  for (let n = decoding.readVarUint(inner); n > 0; n--) {
    ids.push(decoding.readVarUint(inner));
    decoding.readVarUint(inner);
    decoding.readVarString(inner);
  }
  return ids;
}

function countAwarenessPosts() {
  const posts: number[][] = [];
  const post = BroadcastChannel.prototype.postMessage;
  vi.spyOn(BroadcastChannel.prototype, "postMessage").mockImplementation(function (this: BroadcastChannel, data: unknown) {
    const frame = data as Uint8Array;
    if (frame[0] === messageAwareness) posts.push(clientsOf(frame));
    post.call(this, data);
  });
  return posts;
}

type Tab = ReturnType<typeof openTab>;
const knowsAll = (tabs: Tab[]) => () => tabs.every((tab) => tabs.every((other) => tab.conn.awareness.getStates().has(other.doc.clientID)));
/** Resolves once every tab knows every tab's state (each tab checked on its own changes). */
const allKnowAll = (tabs: Tab[]) =>
  Promise.all(
    tabs.map((tab) => until(tab.conn.awareness, "change", () => tabs.every((o) => tab.conn.awareness.getStates().has(o.doc.clientID)))),
  );
const quiet = () => new Promise((resolve) => setTimeout(resolve, 100));

describe("presence traffic of tabs opened together", () => {
  it("8 tabs at once: each posts its state at most twice (its announcement, one answer), and all know all", async () => {
    const name = `presence-${Math.random().toString(36).slice(2)}`;
    const posts = countAwarenessPosts();
    const tabs = Array.from({ length: 8 }, () => openTab(name));
    await allKnowAll(tabs);
    await quiet(); // answers still on their way are counted too
    expect(knowsAll(tabs)()).toBe(true);
    for (const tab of tabs) {
      const own = posts.filter((ids) => ids.includes(tab.doc.clientID));
      expect(own.length).toBeLessThanOrEqual(2);
    }
    expect(posts.every((ids) => ids.length === 1)).toBe(true); // nobody relays the others' states
  });

  it("a tab opened later learns every state already there, and theirs learn its own", async () => {
    const name = `presence-late-${Math.random().toString(36).slice(2)}`;
    const early = [openTab(name), openTab(name), openTab(name)];
    await allKnowAll(early);
    await quiet();
    const tabs = [...early, openTab(name)];
    await allKnowAll(tabs);
    expect(knowsAll(tabs)()).toBe(true);
  });
});
