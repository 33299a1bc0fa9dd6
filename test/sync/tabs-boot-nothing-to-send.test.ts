/**
 * Tabs opened at once ("time to data" at K = 8): a tab sends a step 2 only when it holds something
 * the other lacks. y-protocols encodes a step 2 of nothing still (no structs, no deletions), and
 * each tab pushed one unasked at its handshake and answered every other tab's step 1 with one:
 * eight tabs opening on empty docs, as on a first visit, applied 28 updates that changed nothing,
 * each in a transaction of its own. The boot handshake still holds: a tab that holds something
 * spreads it, and a tab opened later is in sync only with what the open tabs hold. Real Y.Docs and
 * BroadcastChannels, no IndexedDB.
 */
import { afterEach, expect, it, vi } from "vitest";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { connectTabs } from "../../src/sync/index.ts";
import { messageSync, readSyncStatus } from "../../src/sync/tab-protocol.ts";
import { pageChannels } from "./page-channels.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  vi.unstubAllGlobals();
});

const K = 8;

/** A step 2 frame (not an update a tab writes later). */
const isStep2 = (data: Uint8Array): boolean => {
  const decoder = decoding.createDecoder(data);
  return decoding.readVarUint(decoder) === messageSync && decoding.readVarUint(decoder) === syncProtocol.messageYjsSyncStep2;
};

function openTabs(name: string, channels: ReturnType<typeof pageChannels>, pages: string[], fill?: (doc: Y.Doc) => void) {
  return pages.map((page) => {
    const doc = new Y.Doc();
    fill?.(doc);
    const conn = channels.as(page, () => connectTabs(doc, { name, indexeddb: false }));
    cleanups.push(() => (conn.destroy(), doc.destroy()));
    const tab = { page, doc, conn, applied: 0 };
    // Every transaction whose origin is the connection applied a frame from another tab.
    doc.on("beforeTransaction", (tr: Y.Transaction) => void (tr.origin === conn && tab.applied++));
    return tab;
  });
}

it(`${K} tabs opened at once on empty docs send and apply no step 2; what one holds still reaches all, and a later tab is in sync with it`, async () => {
  const name = `nothing-to-send-${Math.random().toString(36).slice(2)}`;
  const channels = pageChannels();
  const { received } = channels;
  const answers = (data: Uint8Array) => readSyncStatus(data)?.kind === "answer";
  const pages = Array.from({ length: K }, (_, i) => `tab${i}`);
  const tabs = openTabs(name, channels, pages);

  // Each tab is answered by every tab opened before it, each answer after that tab's step 2 to it.
  await vi.waitFor(() => expect(pages.map((page) => received(page, answers))).toEqual(pages.map((_, i) => i)));
  await Promise.all(tabs.map((t) => t.conn.whenSynced));
  expect(pages.map((page) => received(page, isStep2))).toEqual(pages.map(() => 0));
  expect(tabs.map((t) => t.applied)).toEqual(tabs.map(() => 0));

  // A tab that holds something at its handshake pushes it to every open tab (they ask it nothing).
  const [full] = openTabs(name, channels, ["full"], (doc) => doc.getMap("m").set("result", "r1"));
  await vi.waitFor(() => expect(tabs.map((t) => t.doc.getMap("m").get("result"))).toEqual(tabs.map(() => "r1")));
  expect(tabs.map((t) => t.applied)).toEqual(tabs.map(() => 1));

  // A tab opened now is in sync only with it: the open tabs answer its step 1 with what it lacks.
  const [late] = openTabs(name, channels, ["late"]);
  await late!.conn.whenSynced;
  expect(late!.doc.getMap("m").get("result")).toBe("r1");
  expect(full!.applied).toBe(0);
});
