/**
 * Replies between tabs go to the tab that asked: a step 1 or an awareness query that ends with its
 * sender's nonce is answered in an addressed frame, which every other tab drops unread (K tabs
 * opening at once no longer apply K² replies). A tab of an older version (no nonce in its step 1)
 * still gets the plain broadcast reply, and still answers ours: the nonce is a trailer that the
 * y-protocols decoder never reads.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import { Awareness } from "y-protocols/awareness";
import {
  encodeQueryAwareness,
  encodeSyncStep1,
  messageAddressed,
  messageAwareness,
  messageSync,
  readFrame,
} from "../../src/sync/tab-protocol.ts";

function tab(text: string) {
  const doc = new Y.Doc();
  doc.getMap<string>("m").set("who", text);
  const awareness = new Awareness(doc);
  awareness.setLocalState({ name: text });
  return { doc, awareness, map: doc.getMap<string>("m") };
}

const kindOf = (frame: Uint8Array): number => decoding.readVarUint(decoding.createDecoder(frame));

describe("tab replies addressed to the asker", () => {
  it("a step 1 with a nonce gets an addressed step 2: the asker applies it, every other tab drops it unread", () => {
    const asker = tab("asker");
    const other = tab("other");
    const answerer = tab("answerer");
    const reply = readFrame(encodeSyncStep1(asker.doc, "nonce-a"), answerer.doc, answerer.awareness, "channel", "nonce-b")!;
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
    const reply = readFrame(encodeQueryAwareness("nonce-a"), answerer.doc, answerer.awareness, "channel", "nonce-b")!;
    expect(kindOf(reply)).toBe(messageAddressed);
    readFrame(reply, other.doc, other.awareness, "channel", "nonce-o");
    expect(other.awareness.getStates().has(answerer.doc.clientID)).toBe(false);
    readFrame(reply, asker.doc, asker.awareness, "channel", "nonce-a");
    expect(asker.awareness.getStates().get(answerer.doc.clientID)).toEqual({ name: "answerer" });
  });

  it("a step 1 and an awareness query without a nonce (an older tab) get the plain broadcast reply", () => {
    const old = tab("old");
    const answerer = tab("answerer");
    const step2 = readFrame(encodeSyncStep1(old.doc), answerer.doc, answerer.awareness, "channel", "nonce-b")!;
    expect(kindOf(step2)).toBe(messageSync);
    readFrame(step2, old.doc, old.awareness, "channel");
    expect(old.doc.getMap("m").size).toBe(1);
    const states = readFrame(encodeQueryAwareness(), answerer.doc, answerer.awareness, "channel", "nonce-b")!;
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

/** A doc holding what both docs hold. */
function applyBoth(a: Y.Doc, b: Y.Doc): Y.Doc {
  const both = new Y.Doc();
  Y.applyUpdate(both, Y.encodeStateAsUpdate(a));
  Y.applyUpdate(both, Y.encodeStateAsUpdate(b));
  return both;
}
