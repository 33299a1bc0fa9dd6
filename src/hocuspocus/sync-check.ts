import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { writeSyncStep1 } from "y-protocols/sync";
import type { Doc } from "yjs";
import { startSettleTimer } from "../core/settle-timer.ts";
import { FENCE_TIMEOUT_MS } from "../sync/trip-probe.ts";

/** Hocuspocus' sync message (its MessageType.Sync), then y-protocols' step 2 inside it. */
const SYNC_MESSAGE = 0;
const STEP2 = 1;

type Socket = { readyState?: number; send?: (data: Uint8Array) => void } | null;

/** Whether a message from the server is a sync step 2: the answer to a step 1. */
function isStep2(data: unknown): boolean {
  try {
    const decoder = decoding.createDecoder(new Uint8Array(data as ArrayBuffer));
    decoding.readVarString(decoder);
    return decoding.readVarUint(decoder) === SYNC_MESSAGE && decoding.readVarUint(decoder) === STEP2;
  } catch {
    return false; // malformed: the provider's own handler reports it
  }
}

/**
 * A sync round over a Hocuspocus connection, as the y-websocket probes' (trip-probe.ts): a step 1
 * for the room, answered by the instance with a step 2. `check` is resyncWhenOnline's: while
 * `inSync()` and the socket is open, it sends one (or joins the one in flight) and calls
 * `answered(true)` at its answer, `answered(false)` after FENCE_TIMEOUT_MS or on `lost()`.
 */
export function syncCheck(doc: Doc, room: string, socket: () => Socket, inSync: () => boolean) {
  const waiting: ((ok: boolean) => void)[] = [];
  const settle = (ok: boolean): void => {
    for (const answered of waiting.splice(0)) answered(ok);
  };
  return {
    check(answered: (ok: boolean) => void): boolean {
      const ws = socket();
      if (!inSync() || ws?.readyState !== 1 || typeof ws.send !== "function") return false;
      if (waiting.length === 0) {
        const encoder = encoding.createEncoder();
        encoding.writeVarString(encoder, room);
        encoding.writeVarUint(encoder, SYNC_MESSAGE);
        writeSyncStep1(encoder, doc);
        ws.send(encoding.toUint8Array(encoder));
        const timeout = startSettleTimer(FENCE_TIMEOUT_MS, () => settle(false), Date.now, { unref: true });
        waiting.push(() => timeout.cancel());
      }
      waiting.push(answered);
      return true;
    },
    /** After the provider applied a message from the server. */
    received(data: unknown): void {
      if (waiting.length > 0 && isStep2(data)) settle(true);
    },
    /** The connection is lost (or closed): nothing more comes back on it. */
    lost: () => settle(false),
  };
}
