/**
 * What connectHocuspocus does at the socket, below @hocuspocus/provider: listeners that never
 * throw, and the relayed removals it holds back.
 */
import * as decoding from "lib0/decoding";
import type { WebSocketConstructor } from "../sync/connect-peers.ts";
import { droppingMalformed } from "../sync/connection.ts";
import { removesOther } from "../sync/held-removals.ts";

type Listener = (event: unknown) => void;
type Listening = {
  addEventListener(type: string, listener: Listener): void;
  removeEventListener(type: string, listener: Listener): void;
};

/** Each message listener of a socket, as guarded() registered it. */
const guardedListeners = new WeakMap<Listener, Listener>();

/**
 * Every socket gets an error listener of its own that stays. The provider removes its listeners
 * before it closes a socket; `ws` then reports a socket closed while still connecting (destroy()
 * during a connection attempt) as an "error" event with no listener left: an uncaught exception
 * that would end a Node process. The provider's own listener still sees every error. Its message
 * listeners never throw (droppingMalformed).
 */
export function guarded(Base: WebSocketConstructor): WebSocketConstructor {
  return class extends (Base as new (url: string, protocols?: string | string[]) => Listening) {
    readonly #url: string;
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.#url = url;
      super.addEventListener("error", () => {});
    }
    override addEventListener(type: string, listener: Listener): void {
      if (type !== "message") return super.addEventListener(type, listener);
      const safe = droppingMalformed("connectHocuspocus", this.#url, listener);
      guardedListeners.set(listener, safe);
      super.addEventListener(type, safe);
    }
    override removeEventListener(type: string, listener: Listener): void {
      super.removeEventListener(type, (type === "message" && guardedListeners.get(listener)) || listener);
    }
  };
}

/** Hocuspocus' awareness message (its MessageType.Awareness), after the room's name. */
const AWARENESS_MESSAGE = 1;

/** Whether a message from the server relays the removal of a peer's presence (see heldRemovals). */
export function relaysRemoval(data: unknown, self: number): boolean {
  try {
    const decoder = decoding.createDecoder(new Uint8Array(data as ArrayBuffer));
    decoding.readVarString(decoder);
    return decoding.readVarUint(decoder) === AWARENESS_MESSAGE && removesOther(decoding.readVarUint8Array(decoder), self);
  } catch {
    return false; // the provider's own handler reports it
  }
}
