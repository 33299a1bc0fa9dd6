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

/** BroadcastChannel name for a connectTabs name; prefixed so other libraries' channels never mix in. */
export const tabChannelName = (name: string): string => `shared-fetch:${name}`;

const frame = (type: number, write?: (encoder: encoding.Encoder) => void): Uint8Array => {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write?.(encoder);
  return encoding.toUint8Array(encoder);
};

/** A step 1; with `asker`, the replies come addressed to it (see messageAddressed). */
export const encodeSyncStep1 = (doc: Doc, asker?: string): Uint8Array =>
  frame(messageSync, (e) => {
    syncProtocol.writeSyncStep1(e, doc);
    if (asker !== undefined) encoding.writeVarString(e, asker);
  });

export const encodeSyncStep2 = (doc: Doc): Uint8Array => frame(messageSync, (e) => syncProtocol.writeSyncStep2(e, doc));

export const encodeUpdate = (update: Uint8Array): Uint8Array => frame(messageSync, (e) => syncProtocol.writeUpdate(e, update));

/** "Who is here?"; with `asker`, the answers come addressed to it (see messageAddressed). */
export const encodeQueryAwareness = (asker?: string): Uint8Array =>
  frame(messageQueryAwareness, asker === undefined ? undefined : (e) => encoding.writeVarString(e, asker));

const addressed = (asker: string | undefined, reply: Uint8Array): Uint8Array =>
  asker === undefined
    ? reply
    : frame(messageAddressed, (e) => {
        encoding.writeVarString(e, asker);
        encoding.writeUint8Array(e, reply);
      });

export const encodeAwareness = (awareness: Awareness, clients: number[], states?: Map<number, Record<string, unknown>>): Uint8Array =>
  frame(messageAwareness, (e) => encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(awareness, clients, states)));

const statusFrame = (type: number, nonce: string, loaded: boolean): Uint8Array =>
  frame(type, (e) => {
    encoding.writeVarString(e, nonce);
    encoding.writeVarUint(e, loaded ? 1 : 0);
  });

/** Sent by a tab after its handshake: who else is here, and is their state complete? */
export const encodeSyncQuery = (nonce: string, loaded: boolean): Uint8Array => statusFrame(messageSyncQuery, nonce, loaded);

/** The answer to `nonce` (or, with the empty nonce, an announcement: this tab has just read IndexedDB). */
export const encodeSyncAnswer = (nonce: string, loaded: boolean): Uint8Array => statusFrame(messageSyncAnswer, nonce, loaded);

export type SyncStatus = { kind: "query" | "answer"; nonce: string; loaded: boolean };

/** Reads a query or answer frame; null for any other frame. Throws on a malformed one. */
export function readSyncStatus(data: Uint8Array): SyncStatus | null {
  const decoder = decoding.createDecoder(data);
  const type = decoding.readVarUint(decoder);
  if (type !== messageSyncQuery && type !== messageSyncAnswer) return null;
  const nonce = decoding.readVarString(decoder);
  const loaded = decoding.readVarUint(decoder) === 1;
  return { kind: type === messageSyncQuery ? "query" : "answer", nonce, loaded };
}

/**
 * Applies one frame with `origin` as the transaction/awareness origin and returns the reply to
 * broadcast, if any. `self` is the reading tab's nonce: a reply addressed to another tab is
 * dropped unread. Throws on malformed input; unknown frame kinds are ignored.
 */
export function readFrame(data: Uint8Array, doc: Doc, awareness: Awareness, origin: unknown, self?: string): Uint8Array | null {
  const decoder = decoding.createDecoder(data);
  switch (decoding.readVarUint(decoder)) {
    case messageSync: {
      const start = decoder.pos;
      if (decoding.readVarUint(decoder) === syncProtocol.messageYjsSyncStep1) {
        const stateVector = decoding.readVarUint8Array(decoder);
        const asker = decoding.hasContent(decoder) ? decoding.readVarString(decoder) : undefined;
        return addressed(
          asker,
          frame(messageSync, (e) => syncProtocol.writeSyncStep2(e, doc, stateVector)),
        );
      }
      decoder.pos = start;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, messageSync);
      // Rethrow instead of y-protocols' console.error, so the caller decides how to report it.
      syncProtocol.readSyncMessage(decoder, encoder, doc, origin, (error) => {
        throw error;
      });
      // Only a step 1 produces a reply (step 2); the type byte alone means nothing to send.
      return encoding.length(encoder) > 1 ? encoding.toUint8Array(encoder) : null;
    }
    case messageAwareness:
      awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), origin);
      return null;
    case messageQueryAwareness: {
      const asker = decoding.hasContent(decoder) ? decoding.readVarString(decoder) : undefined;
      // Answer with every known state, as y-websocket does, so a new tab also learns the replicas
      // another tab relays from elsewhere.
      return addressed(asker, encodeAwareness(awareness, [...awareness.getStates().keys()]));
    }
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
