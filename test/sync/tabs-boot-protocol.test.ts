/**
 * README, Design notes: the boot traffic between tabs, step by step. "Between tabs the sync is a
 * handshake: a booting tab asks, and a tab whose doc holds everything persisted answers after the
 * state it sent (one sender's messages arrive in order)"; and ("Boot traffic between tabs that
 * grows with K, not K²") a tab's step 1, awareness query and sync query end with its nonce and an
 * inbox flag, the answers go to the asker's own channel, "one channel per asking tab kept until
 * its sync query is answered", and a tab of the version before inboxes (nonce, no flag) gets its
 * answers addressed to it on the group's channel, "which the others drop after reading the nonce".
 * Real connectTabs tabs on Node's BroadcastChannel; the asking tab is written frame by frame where
 * a step must be seen alone. (The frames' encoding: test/sync/tabs-addressed.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import * as decoding from "lib0/decoding";
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
  messageQueryAwareness,
  messageSync,
  messageSyncAnswer,
  readFrame,
  readSyncStatus,
  tabChannelName,
} from "../../src/sync/tab-protocol.ts";

const opened: (() => void)[] = [];
afterEach(() => {
  opened.splice(0).forEach((close) => close());
  vi.restoreAllMocks();
});

const uniqueName = (): string => `boot-protocol-${Math.random().toString(36).slice(2)}`;
const kindOf = (frame: Uint8Array): number => decoding.readVarUint(decoding.createDecoder(frame));

/** Every frame a channel of `name` receives, in order, and a way to wait for one. */
function listen(name: string) {
  const frames: Uint8Array[] = [];
  const waiters: { match: (f: Uint8Array) => boolean; resolve: () => void }[] = [];
  const channel = new BroadcastChannel(name);
  channel.addEventListener("message", (event) => {
    const frame = asBytes(event.data)!;
    frames.push(frame);
    for (const w of waiters.filter((w) => w.match(frame))) w.resolve();
  });
  opened.push(() => channel.close());
  const next = (match: (f: Uint8Array) => boolean) => new Promise<void>((resolve) => waiters.push({ match, resolve }));
  /** Resolves once everything posted on the channel before now has arrived (one sender's frames keep their order). */
  const drained = async () => {
    const probe = new BroadcastChannel(name);
    opened.push(() => probe.close());
    const arrived = next((f) => f[0] === 99);
    probe.postMessage(new Uint8Array([99]));
    await arrived;
  };
  return { frames, channel, next, drained };
}

function openTab(name: string, text: string) {
  const doc = new Y.Doc();
  doc.getMap<string>("m").set(text, text);
  const conn = connectTabs(doc, { name, indexeddb: false });
  opened.push(() => (conn.destroy(), doc.destroy()));
  return { doc, conn };
}

/** The nonce and inbox flag a step 1 or an awareness query carries after its y-protocols content. */
function trailer(frame: Uint8Array): { nonce: string; inbox: boolean } {
  const d = decoding.createDecoder(frame);
  const kind = decoding.readVarUint(d);
  if (kind === messageSync) {
    expect(decoding.readVarUint(d)).toBe(syncProtocol.messageYjsSyncStep1);
    decoding.readVarUint8Array(d);
  }
  return { nonce: decoding.readVarString(d), inbox: decoding.hasContent(d) && decoding.readVarUint(d) === 1 };
}

const isStep1 = (f: Uint8Array): boolean => f[0] === messageSync && f[1] === syncProtocol.messageYjsSyncStep1;
const isStep2 = (f: Uint8Array): boolean => f[0] === messageSync && f[1] === syncProtocol.messageYjsSyncStep2;

describe("README, Design notes · boot traffic between tabs: the handshake step by step", () => {
  it("a booting tab sends, in order: its step 1, its state, an awareness query, its presence, then its sync query — the asks ending with its nonce and the inbox flag", async () => {
    const name = uniqueName();
    const group = listen(tabChannelName(name));
    openTab(name, "a");
    await group.drained();
    const sent = group.frames.filter((f) => f[0] !== 99);
    expect(sent.map((f) => (isStep1(f) ? "step 1" : isStep2(f) ? "step 2" : kindOf(f)))).toEqual([
      "step 1",
      "step 2",
      messageQueryAwareness,
      messageAwareness,
      4, // messageSyncQuery
    ]);
    const { nonce } = trailer(sent[0]!);
    expect(trailer(sent[0]!)).toEqual({ nonce, inbox: true });
    expect(trailer(sent[2]!)).toEqual({ nonce, inbox: true });
    // Node has no IndexedDB here: nothing persisted to wait for, so the tab says its state is complete.
    expect(readSyncStatus(sent[4]!)).toEqual({ kind: "query", nonce, loaded: true, inbox: true });
  });

  it("an open tab answers an asking tab in that tab's inbox alone: its state, its presence, then the answer naming it, last", async () => {
    const name = uniqueName();
    const group = listen(tabChannelName(name));
    const a = openTab(name, "a");
    a.conn.awareness.setLocalState({ replica: "a" }); // as a store on it says who it is
    await a.conn.whenSynced;
    await group.drained();
    const answerer = trailer(group.frames.find(isStep1)!).nonce;

    // The asking tab, frame by frame: its inbox open before it asks.
    const asker = new Y.Doc();
    const awareness = new Awareness(asker);
    const inbox = listen(inboxName(name, "asker"));
    const answered = inbox.next((f) => f[0] === messageSyncAnswer);
    const send = listen(tabChannelName(name)).channel;
    send.postMessage(encodeSyncStep1(asker, "asker", true));
    send.postMessage(encodeQueryAwareness("asker", true));
    send.postMessage(encodeSyncQuery("asker", false, true));
    await answered;

    expect(inbox.frames.map((f) => (isStep2(f) ? "step 2" : kindOf(f)))).toEqual(["step 2", messageAwareness, messageSyncAnswer]);
    expect(readSyncStatus(inbox.frames[2]!)).toEqual({ kind: "answer", nonce: "asker", loaded: true, inbox: false, answerer });
    for (const frame of inbox.frames.slice(0, 2)) readFrame(frame, asker, awareness, "channel", "asker");
    expect(asker.getMap("m").get("a")).toBe("a");
    expect(awareness.getStates().get(a.conn.awareness.clientID)).toEqual({ replica: "a" });
    // Nothing meant for the asker went to the group's channel.
    await group.drained();
    expect(group.frames.filter((f) => f[0] === messageAddressed || f[0] === messageSyncAnswer)).toEqual([]);
  });

  it("the answering tab keeps one channel to the asker's inbox until the asker's sync query is answered, then closes it", async () => {
    const name = uniqueName();
    const a = openTab(name, "a");
    await a.conn.whenSynced;
    const closed: string[] = [];
    const close = BroadcastChannel.prototype.close;
    vi.spyOn(BroadcastChannel.prototype, "close").mockImplementation(function (this: BroadcastChannel) {
      closed.push(this.name);
      close.call(this);
    });
    const asker = new Y.Doc();
    const inbox = listen(inboxName(name, "asker"));
    const send = listen(tabChannelName(name)).channel;
    const replied = inbox.next((f) => f[0] === messageAwareness);
    send.postMessage(encodeSyncStep1(asker, "asker", true));
    send.postMessage(encodeQueryAwareness("asker", true));
    await replied;
    expect(closed).toEqual([]); // both replies sent, the query not yet: the channel stays

    const answered = inbox.next((f) => f[0] === messageSyncAnswer);
    send.postMessage(encodeSyncQuery("asker", false, true));
    await answered;
    expect(closed).toEqual([inboxName(name, "asker")]);
  });

  it("a tab of the version before inboxes (nonce, no flag) is answered in frames addressed to it on the group's channel; the other tabs drop them unapplied", async () => {
    const name = uniqueName();
    const a = openTab(name, "a");
    const c = openTab(name, "c");
    await Promise.all([a.conn.whenSynced, c.conn.whenSynced]);
    const group = listen(tabChannelName(name));
    await group.drained();
    group.frames.length = 0;
    // What c applies from now on: an addressed frame it did not drop would be applied here.
    let applied = 0;
    c.doc.on("afterTransaction", (tr: Y.Transaction) => void (tr.local || applied++));

    const old = new Y.Doc();
    const awareness = new Awareness(old);
    group.channel.postMessage(encodeSyncStep1(old, "old"));
    group.channel.postMessage(encodeQueryAwareness("old"));
    group.channel.postMessage(encodeSyncQuery("old", false));
    const answers = () => group.frames.filter((f) => readSyncStatus(f)?.nonce === "old");
    await vi.waitFor(() => expect(answers()).toHaveLength(2)); // a's and c's, plain on the group's channel
    await group.drained();

    const addressed = group.frames.filter((f) => f[0] === messageAddressed);
    expect(addressed).toHaveLength(4); // from a and from c: a step 2 and the presence each
    for (const frame of addressed) expect(decoding.readVarString(decoding.createDecoder(frame.subarray(1)))).toBe("old");
    expect(applied).toBe(0);
    for (const frame of addressed) readFrame(frame, old, awareness, "channel", "old");
    expect(old.getMap("m").toJSON()).toEqual({ a: "a", c: "c" });
  });
});
