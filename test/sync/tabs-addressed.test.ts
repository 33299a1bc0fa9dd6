/**
 * Replies between tabs go to the tab that asked: a step 1 or an awareness query that ends with its
 * sender's nonce and the inbox flag is answered on the asker's own channel (its inbox), which no
 * other tab hears; with the nonce alone (a tab of the version before inboxes), in an addressed
 * frame on the group's channel, which every other tab drops unread. A tab of an older version still
 * (no nonce in its step 1) gets the plain broadcast reply, and still answers ours: the nonce and
 * the flag are a trailer that the y-protocols decoder never reads.
 */
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import { Awareness } from "y-protocols/awareness";
import { connectTabs } from "../../src/sync/index.ts";
import {
  asBytes,
  encodeQueryAwareness,
  encodeSyncQuery,
  encodeSyncStep1,
  inboxName,
  messageAddressed,
  messageAwareness,
  messageSync,
  messageSyncAnswer,
  readFrame,
  readSyncStatus,
  tabChannelName,
  type TabReply,
} from "../../src/sync/tab-protocol.ts";
import { until } from "./wait.ts";

function tab(text: string) {
  const doc = new Y.Doc();
  doc.getMap<string>("m").set("who", text);
  const awareness = new Awareness(doc);
  awareness.setLocalState({ name: text });
  return { doc, awareness, map: doc.getMap<string>("m") };
}

const kindOf = (frame: Uint8Array): number => decoding.readVarUint(decoding.createDecoder(frame));
/** The frame of a reply sent to the whole group (no inbox). */
const broadcast = (reply: TabReply | null): Uint8Array => {
  expect(reply?.inbox).toBeUndefined();
  return reply!.frame;
};

describe("tab replies addressed to the asker", () => {
  it("a step 1 with a nonce gets an addressed step 2: the asker applies it, every other tab drops it unread", () => {
    const asker = tab("asker");
    const other = tab("other");
    const answerer = tab("answerer");
    const reply = broadcast(readFrame(encodeSyncStep1(asker.doc, "nonce-a"), answerer.doc, answerer.awareness, "channel", "nonce-b"));
    expect(kindOf(reply)).toBe(messageAddressed);

    const before = Y.encodeStateVector(other.doc);
    expect(readFrame(reply, other.doc, other.awareness, "channel", "nonce-o")).toBeNull();
    expect(Y.encodeStateVector(other.doc)).toEqual(before);

    expect(readFrame(reply, asker.doc, asker.awareness, "channel", "nonce-a")).toBeNull();
    // The asker now holds the answerer's writes too.
    expect(Y.encodeStateVector(asker.doc)).toEqual(Y.encodeStateVector(applyBoth(asker.doc, answerer.doc)));
  });

  it("an awareness query with a nonce gets an addressed answer that only the asker applies", () => {
    const asker = tab("asker");
    const other = tab("other");
    const answerer = tab("answerer");
    const reply = broadcast(readFrame(encodeQueryAwareness("nonce-a"), answerer.doc, answerer.awareness, "channel", "nonce-b"));
    expect(kindOf(reply)).toBe(messageAddressed);
    readFrame(reply, other.doc, other.awareness, "channel", "nonce-o");
    expect(other.awareness.getStates().has(answerer.doc.clientID)).toBe(false);
    readFrame(reply, asker.doc, asker.awareness, "channel", "nonce-a");
    expect(asker.awareness.getStates().get(answerer.doc.clientID)).toEqual({ name: "answerer" });
  });

  it("a step 1 and an awareness query without a nonce (an older tab) get the plain broadcast reply", () => {
    const old = tab("old");
    const answerer = tab("answerer");
    const step2 = broadcast(readFrame(encodeSyncStep1(old.doc), answerer.doc, answerer.awareness, "channel", "nonce-b"));
    expect(kindOf(step2)).toBe(messageSync);
    readFrame(step2, old.doc, old.awareness, "channel");
    expect(old.doc.getMap("m").size).toBe(1);
    const states = broadcast(readFrame(encodeQueryAwareness(), answerer.doc, answerer.awareness, "channel", "nonce-b"));
    expect(kindOf(states)).toBe(messageAwareness);
  });

  it("an older tab's decoder answers our step 1 as it always did: the nonce trailer is never read", () => {
    const ours = tab("ours");
    const old = tab("old");
    const decoder = decoding.createDecoder(encodeSyncStep1(ours.doc, "nonce-a"));
    expect(decoding.readVarUint(decoder)).toBe(messageSync);
    const encoder = encoding.createEncoder();
    // What an older tab ran: y-protocols' own reader.
    syncProtocol.readSyncMessage(decoder, encoder, old.doc, "channel");
    const reply = encoding.toUint8Array(encoder);
    expect(reply.length).toBeGreaterThan(0);
    const framed = new Uint8Array([messageSync, ...reply]);
    readFrame(framed, ours.doc, ours.awareness, "channel", "nonce-a");
    expect(Y.encodeStateVector(ours.doc)).toEqual(Y.encodeStateVector(applyBoth(ours.doc, old.doc)));
  });
});

describe("tab replies to the asker's inbox", () => {
  const opened: (() => void)[] = [];
  afterEach(() => opened.splice(0).forEach((close) => close()));

  it("a step 1 and an awareness query with the inbox flag get plain replies for the asker's inbox", () => {
    const asker = tab("asker");
    const answerer = tab("answerer");
    const step2 = readFrame(encodeSyncStep1(asker.doc, "nonce-a", true), answerer.doc, answerer.awareness, "channel", "nonce-b")!;
    expect(step2.inbox).toBe("nonce-a");
    expect(kindOf(step2.frame)).toBe(messageSync);
    const both = Y.encodeStateVector(applyBoth(asker.doc, answerer.doc));
    expect(readFrame(step2.frame, asker.doc, asker.awareness, "channel", "nonce-a")).toBeNull();
    expect(Y.encodeStateVector(asker.doc)).toEqual(both);

    const states = readFrame(encodeQueryAwareness("nonce-a", true), answerer.doc, answerer.awareness, "channel", "nonce-b")!;
    expect(states.inbox).toBe("nonce-a");
    expect(kindOf(states.frame)).toBe(messageAwareness);
    readFrame(states.frame, asker.doc, asker.awareness, "channel", "nonce-a");
    expect(asker.awareness.getStates().get(answerer.doc.clientID)).toEqual({ name: "answerer" });
  });

  it("a sync query says whether its sender wants the answer in its inbox; a reader of the version before reads it alike", () => {
    expect(readSyncStatus(encodeSyncQuery("nonce-a", true, true))).toEqual({ kind: "query", nonce: "nonce-a", loaded: true, inbox: true });
    expect(readSyncStatus(encodeSyncQuery("nonce-a", false))).toEqual({ kind: "query", nonce: "nonce-a", loaded: false, inbox: false });
    // What the version before read of a query: the nonce, then `loaded`; the flag after them is never read.
    const decoder = decoding.createDecoder(encodeSyncQuery("nonce-a", true, true));
    decoding.readVarUint(decoder);
    expect([decoding.readVarString(decoder), decoding.readVarUint(decoder)]).toEqual(["nonce-a", 1]);
  });

  it("K tabs connecting: no reply meant for one tab goes to the group's channel, and every tab gets every tab's state", async () => {
    const name = `inbox-${Math.random().toString(36).slice(2)}`;
    const kinds: number[] = [];
    const listener = new BroadcastChannel(tabChannelName(name));
    listener.addEventListener("message", (event) => kinds.push(kindOf(asBytes(event.data)!)));
    opened.push(() => listener.close());
    const tabs = ["a", "b", "c", "d"].map((who) => {
      const doc = new Y.Doc();
      doc.getMap<string>("m").set(who, who);
      const conn = connectTabs(doc, { name, indexeddb: false });
      opened.push(() => {
        conn.destroy();
        doc.destroy();
      });
      return { doc, conn };
    });
    await Promise.all(tabs.map((t) => t.conn.whenSynced));
    for (const t of tabs) await until(t.doc, "update", () => t.doc.getMap("m").size === 4);
    // A listener's messages come in order: a probe sent now arrives after everything sent before it.
    const probe = new BroadcastChannel(tabChannelName(name));
    opened.push(() => probe.close());
    const drained = new Promise<void>((resolve) => listener.addEventListener("message", (e) => asBytes(e.data)?.[0] === 99 && resolve()));
    probe.postMessage(new Uint8Array([99]));
    await drained;
    expect(kinds).not.toContain(messageAddressed);
    // Answers to sync queries went to the inboxes too; only "IndexedDB read" announcements (none here) remain.
    expect(kinds).not.toContain(messageSyncAnswer);
    expect(kinds.length).toBeGreaterThan(0);
  });

  it("an inbox is named per group and nonce", () => {
    expect(inboxName("app", "n1")).not.toBe(inboxName("app", "n2"));
    expect(inboxName("app", "n1")).not.toBe(tabChannelName("app"));
  });
});

/** A doc holding what both docs hold. */
function applyBoth(a: Y.Doc, b: Y.Doc): Y.Doc {
  const both = new Y.Doc();
  Y.applyUpdate(both, Y.encodeStateAsUpdate(a));
  Y.applyUpdate(both, Y.encodeStateAsUpdate(b));
  return both;
}
