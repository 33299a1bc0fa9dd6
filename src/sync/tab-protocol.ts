import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import * as awarenessProtocol from "y-protocols/awareness";
import type { Awareness } from "y-protocols/awareness";
import type { Doc } from "yjs";

// Same numbering as y-websocket, so a frame means the same thing on a socket and on a channel.
export const messageSync = 0;
export const messageAwareness = 1;
export const messageQueryAwareness = 3;
/**
 * Beyond y-websocket's numbering (tabs only): "is my state complete?" and its answer. Each carries
 * a nonce and whether the sender's doc holds everything persisted (its IndexedDB was read). A
 * sender's frames arrive in order, so an answer follows the step 2 it sent to the asker: a tab
 * that hears "loaded" from another has that tab's whole state, IndexedDB included.
 */
export const messageSyncQuery = 4;
export const messageSyncAnswer = 5;
/**
 * A reply meant for one tab: the asker's nonce, then the reply's frame. A step 1 or an awareness
 * query that ends with its sender's nonce (a trailer the y-protocols decoder never reads, so a tab
 * of an older version still answers it as before) is answered so. Every tab of the group receives
 * a frame on the channel: the others drop it after reading the nonce, instead of applying each
 * tab's whole state once per tab that opens (K tabs opening at once applied K² replies).
 */
export const messageAddressed = 6;
/**
 * After the nonce, a step 1, an awareness query or a sync query may carry this flag: "send your
 * replies to my inbox" (a channel of its own, see inboxName). Only the asker receives them there:
 * an addressed frame on the group's channel still reached every tab (K tabs opening at once each
 * received and dropped about 2K² of them). A tab of an older version never reads the flag and
 * answers with an addressed frame, which the asker still reads on the group's channel.
 */
const INBOX = 1;

/** BroadcastChannel name for a connectTabs name; prefixed so other libraries' channels never mix in. */
export const tabChannelName = (name: string): string => `shared-fetch:${name}`;

/** The channel on which the tab with `nonce` receives the replies meant for it alone. */
export const inboxName = (name: string, nonce: string): string => `${tabChannelName(name)}#${nonce}`;

/** A frame to send: to the whole group, or (`inbox`) to the one tab whose nonce it is. */
export type TabReply = { frame: Uint8Array; inbox?: string };

/** The asker's nonce and, when it asks for it, the inbox flag (see INBOX). */
const writeAsker = (e: encoding.Encoder, asker: string, inbox: boolean): void => {
  encoding.writeVarString(e, asker);
  if (inbox) encoding.writeVarUint(e, INBOX);
};
type Asker = { nonce: string; inbox: boolean } | undefined;
const readAsker = (d: decoding.Decoder): Asker => {
  if (!decoding.hasContent(d)) return undefined;
  const nonce = decoding.readVarString(d);
  return { nonce, inbox: decoding.hasContent(d) && decoding.readVarUint(d) === INBOX };
};

const frame = (type: number, write?: (encoder: encoding.Encoder) => void): Uint8Array => {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write?.(encoder);
  return encoding.toUint8Array(encoder);
};

/** A step 1; with `asker`, the replies come addressed to it, or to its inbox (see messageAddressed, INBOX). */
export const encodeSyncStep1 = (doc: Doc, asker?: string, inbox = false): Uint8Array =>
  frame(messageSync, (e) => {
    syncProtocol.writeSyncStep1(e, doc);
    if (asker !== undefined) writeAsker(e, asker, inbox);
  });

/**
 * A step 2 of what `doc` holds beyond `stateVector` (all of it without one), or null when that is
 * nothing (5 bytes: the two types, the length, an update of no structs and no deletions), which
 * y-protocols sends still and each receiver applied in a transaction of its own: K tabs opening at
 * once on empty docs applied K² of them.
 */
export const encodeSyncStep2 = (doc: Doc, stateVector?: Uint8Array): Uint8Array | null => {
  const step2 = frame(messageSync, (e) => syncProtocol.writeSyncStep2(e, doc, stateVector));
  return step2.length > 5 ? step2 : null;
};

export const encodeUpdate = (update: Uint8Array): Uint8Array => frame(messageSync, (e) => syncProtocol.writeUpdate(e, update));

/** "Who is here?"; with `asker`, the answers come addressed to it, or to its inbox (see messageAddressed, INBOX). */
export const encodeQueryAwareness = (asker?: string, inbox = false): Uint8Array =>
  frame(messageQueryAwareness, asker === undefined ? undefined : (e) => writeAsker(e, asker, inbox));

const addressed = (asker: Asker, reply: Uint8Array): TabReply =>
  asker === undefined
    ? { frame: reply }
    : asker.inbox
      ? { frame: reply, inbox: asker.nonce }
      : {
          frame: frame(messageAddressed, (e) => {
            encoding.writeVarString(e, asker.nonce);
            encoding.writeUint8Array(e, reply);
          }),
        };

export const encodeAwareness = (awareness: Awareness, clients: number[], states?: Map<number, Record<string, unknown>>): Uint8Array =>
  frame(messageAwareness, (e) => encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(awareness, clients, states)));

const statusFrame = (type: number, nonce: string, loaded: boolean, inbox = false, answerer?: string): Uint8Array =>
  frame(type, (e) => {
    encoding.writeVarString(e, nonce);
    encoding.writeVarUint(e, loaded ? 1 : 0);
    if (inbox || answerer !== undefined) encoding.writeVarUint(e, inbox ? INBOX : 0);
    if (answerer !== undefined) encoding.writeVarString(e, answerer);
  });

/** Sent by a tab after its handshake: who else is here, and is their state complete? With `inbox`, answer there. */
export const encodeSyncQuery = (nonce: string, loaded: boolean, inbox = false): Uint8Array =>
  statusFrame(messageSyncQuery, nonce, loaded, inbox);

/**
 * The answer to `nonce` (or, with the empty nonce, an announcement: this tab has just read
 * IndexedDB), naming its sender (`answerer`, its connection's nonce) after a 0 where a query's
 * inbox flag would be: a tab of an older version reads the 0 and stops there.
 */
export const encodeSyncAnswer = (nonce: string, loaded: boolean, answerer?: string): Uint8Array =>
  statusFrame(messageSyncAnswer, nonce, loaded, false, answerer);

/** `inbox`: a query whose sender wants the answer in its inbox (see INBOX). `answerer`: who sent an answer, when it says. */
export type SyncStatus = { kind: "query" | "answer"; nonce: string; loaded: boolean; inbox: boolean; answerer?: string };

/** Reads a query or answer frame; null for any other frame. Throws on a malformed one. */
export function readSyncStatus(data: Uint8Array): SyncStatus | null {
  const decoder = decoding.createDecoder(data);
  const type = decoding.readVarUint(decoder);
  if (type !== messageSyncQuery && type !== messageSyncAnswer) return null;
  const nonce = decoding.readVarString(decoder);
  const loaded = decoding.readVarUint(decoder) === 1;
  const inbox = decoding.hasContent(decoder) && decoding.readVarUint(decoder) === INBOX;
  const status: SyncStatus = { kind: type === messageSyncQuery ? "query" : "answer", nonce, loaded, inbox };
  if (status.kind === "answer" && decoding.hasContent(decoder)) status.answerer = decoding.readVarString(decoder);
  return status;
}

/**
 * Applies one frame with `origin` as the transaction/awareness origin and returns the reply to
 * send, if any. `self` is the reading tab's nonce: a reply addressed to another tab is dropped
 * unread. Throws on malformed input; unknown frame kinds are ignored.
 */
export function readFrame(data: Uint8Array, doc: Doc, awareness: Awareness, origin: unknown, self?: string): TabReply | null {
  const decoder = decoding.createDecoder(data);
  switch (decoding.readVarUint(decoder)) {
    case messageSync: {
      const start = decoder.pos;
      if (decoding.readVarUint(decoder) === syncProtocol.messageYjsSyncStep1) {
        const reply = encodeSyncStep2(doc, decoding.readVarUint8Array(decoder));
        // The asker holds all we do: nothing to send (the sync answer after it still vouches).
        return reply && addressed(readAsker(decoder), reply);
      }
      decoder.pos = start;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, messageSync);
      // Rethrow instead of y-protocols' console.error, so the caller decides how to report it.
      syncProtocol.readSyncMessage(decoder, encoder, doc, origin, (error) => {
        throw error;
      });
      // Only a step 1 produces a reply (step 2); the type byte alone means nothing to send.
      return encoding.length(encoder) > 1 ? { frame: encoding.toUint8Array(encoder) } : null;
    }
    case messageAwareness:
      awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), origin);
      return null;
    case messageQueryAwareness:
      // Answer with every known state, as y-websocket does, so a new tab also learns the replicas
      // another tab relays from elsewhere.
      return addressed(readAsker(decoder), encodeAwareness(awareness, [...awareness.getStates().keys()]));
    case messageAddressed: {
      if (decoding.readVarString(decoder) !== self) return null;
      const reply = decoding.readTailAsUint8Array(decoder);
      // Only a step 2 or an awareness update is ever addressed: neither asks for a reply.
      const type = decoding.readVarUint(decoding.createDecoder(reply));
      if (type !== messageSync && type !== messageAwareness) return null;
      readFrame(reply, doc, awareness, origin, self);
      return null;
    }
    default:
      return null;
  }
}

/** Structured clone gives a Uint8Array back in browsers and Node; accept any byte view to be safe. */
export function asBytes(data: unknown): Uint8Array | null {
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Object.prototype.toString.call(data) === "[object ArrayBuffer]") return new Uint8Array(data as ArrayBuffer);
  return null;
}
