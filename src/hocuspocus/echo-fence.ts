import * as decoding from "lib0/decoding";
import { parseUpdateMeta, type Doc } from "yjs";
import { startSettleTimer } from "../core/settle-timer.ts";
import { FENCE_TIMEOUT_MS } from "../sync/trip-probe.ts";

/** Hocuspocus' sync message (its MessageType.Sync), then y-protocols' step 2 or update inside it. */
const SYNC_MESSAGE = 0;
const STEP2 = 1;
const UPDATE = 2;
/** Hocuspocus' ack of an update (MessageType.SyncStatus): 0 when it refused it (a read-only connection). */
const SYNC_STATUS = 8;

type Entry = { answered: ((inOrder: boolean) => void)[]; echo?: number };

/**
 * The clock our client reaches with the update a server message carries, if it carries ours;
 * false when the instance refused an update of ours: it applies none, so none comes back.
 */
function ourEnd(data: unknown, clientID: number): number | false | undefined {
  try {
    const decoder = decoding.createDecoder(new Uint8Array(data as ArrayBuffer));
    decoding.readVarString(decoder);
    const kind = decoding.readVarUint(decoder);
    if (kind === SYNC_STATUS) return decoding.readVarUint(decoder) === 0 ? false : undefined;
    if (kind !== SYNC_MESSAGE) return undefined;
    const type = decoding.readVarUint(decoder);
    if (type !== STEP2 && type !== UPDATE) return undefined;
    return parseUpdateMeta(decoding.readVarUint8Array(decoder)).to.get(clientID);
  } catch {
    return undefined; // malformed: the provider's own handler reports it
  }
}

/**
 * Claim fences through one Hocuspocus instance (ConnectorInfo.fence). Its server applies the
 * updates of every client of a room in one order and sends each one, as it applies it, to every
 * client of the room, its sender included, on each client's one socket. So when the update that
 * carries our claims comes back to us, every update the instance applied before it is in our doc:
 * the rival claims that reached it first, the claims' exact place. No message of its own is needed.
 * Sound only where every device of the room reaches that instance: instances on Redis each apply
 * their own clients' updates first, and two devices on two of them would each count itself first.
 */
export function echoFence(doc: Doc, inSync: () => boolean, fromServer: (origin: unknown) => boolean) {
  /** The fence of this tick, until the doc sends an update: the claims of one transaction share it. */
  let next: Entry | undefined;
  /** Fences whose claims have not come back yet, oldest first. */
  let waiting: Entry[] = [];
  let echoedTo = 0;
  const settle = (entry: Entry, inOrder: boolean) => {
    waiting = waiting.filter((e) => e !== entry);
    for (const answered of entry.answered.splice(0)) answered(inOrder);
  };
  const unplaced = () => {
    for (const entry of [...waiting]) settle(entry, false);
  };
  const onUpdate = (update: Uint8Array, origin: unknown) => {
    // The update written right behind a fence carries its claims: where our clock ends with it.
    if (next && !fromServer(origin)) next.echo = parseUpdateMeta(update).to.get(doc.clientID);
    next = undefined;
  };
  doc.on("update", onUpdate);
  return {
    fence(answered: (inOrder: boolean) => void): boolean {
      if (!next) {
        if (!inSync()) return false;
        const entry: Entry = { answered: [] };
        next = entry;
        waiting.push(entry);
        const timeout = startSettleTimer(FENCE_TIMEOUT_MS, () => settle(entry, false), Date.now, { unref: true });
        entry.answered.push(() => timeout.cancel());
        queueMicrotask(() => {
          if (next === entry) next = undefined;
          // Nothing of ours followed the fence: no claim to place.
          if (entry.echo === undefined) settle(entry, false);
        });
      }
      next.answered.push(answered);
      return true;
    },
    /** After the provider applied a message from the server: answers the fences whose claims it brought back. */
    received(data: unknown): void {
      if (waiting.length === 0) return;
      const end = ourEnd(data, doc.clientID);
      // Refused (read-only): no echo will place the claims; their window, now rather than in 1 s.
      if (end === false) return unplaced();
      if (end === undefined) return;
      echoedTo = Math.max(echoedTo, end);
      for (const entry of waiting.filter((e) => e.echo !== undefined && e.echo <= echoedTo)) settle(entry, true);
    },
    /** The connection is lost: nothing more comes back on it. */
    lost(): void {
      next = undefined;
      echoedTo = 0;
      unplaced();
    },
    stop(): void {
      doc.off("update", onUpdate);
      this.lost();
    },
  };
}
