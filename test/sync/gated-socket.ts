// A ws WebSocket class whose instances the test counts and whose "open" event it can hold at the
// client: the provider then sees a socket still opening for as long as the test wants.
import WebSocket from "ws";

type Listener = (event: unknown) => void;

/**
 * `Gated`: the class to give as `WebSocketPolyfill`; `state.sockets`: how many were made; while
 * `state.holdingOpen`, "open" events wait in `opens`; `open()` stops holding and lets them go.
 */
export function gatedSockets() {
  const opens: (() => void)[] = [];
  const state = { sockets: 0, holdingOpen: false };
  const Gated = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      state.sockets++;
    }
    override addEventListener(type: string, listener: Listener, ...rest: unknown[]): void {
      const gated: Listener =
        type === "open" ? (event) => (state.holdingOpen ? opens.push(() => listener(event)) : listener(event)) : listener;
      (super.addEventListener as (...args: unknown[]) => void)(type, gated, ...rest);
    }
  };
  const open = () => {
    state.holdingOpen = false;
    for (const deliver of opens.splice(0)) deliver();
  };
  return { Gated, state, opens, open };
}
