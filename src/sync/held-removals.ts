import * as decoding from "lib0/decoding";
import { unrefTimer } from "../core/unref-timer.ts";

/**
 * How long a peer's removal relayed by the server waits before it is applied. A server that stops
 * closes its connections one by one and, before each close, tells the connections still open that
 * this one's client left (Hocuspocus' `destroy()`, which its own SIGTERM handler runs): every device
 * but the first took the others for dead and sent their requests in flight again. The close of our
 * own connection comes right behind those removals, in the same burst; one that really left is
 * removed this much later.
 */
export const RELAYED_REMOVAL_GRACE_MS = 100;

/** Whether an awareness update (y-protocols' encoding) removes a client other than `self`. */
export function removesOther(update: Uint8Array, self: number): boolean {
  try {
    const decoder = decoding.createDecoder(update);
    for (let n = decoding.readVarUint(decoder); n > 0; n--) {
      const client = decoding.readVarUint(decoder);
      decoding.readVarUint(decoder); // its clock
      if (decoding.readVarString(decoder) === "null" && client !== self) return true;
    }
  } catch {
    // Malformed: the provider's own handler reports it.
  }
  return false;
}

/**
 * Relayed removals, held for RELAYED_REMOVAL_GRACE_MS. `drop()` on our own lost connection: those
 * peers are then only unheard from (dropRemotePresence), and a reconnect tells who is still there.
 */
export function heldRemovals(): { hold(apply: () => void): void; drop(): void } {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    hold(apply) {
      const timer = setTimeout(() => (timers.delete(timer), apply()), RELAYED_REMOVAL_GRACE_MS);
      timers.add(unrefTimer(timer));
    },
    drop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
