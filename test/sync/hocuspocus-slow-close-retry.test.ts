/**
 * A passing failure's reconnect waits for the old socket's close when that close outlasts the
 * back-off (a slow close handshake). That wait is one pending reconnect, as the timer was: a later
 * passing failure replaces it, so the socket's close reconnects no sooner than the later back-off;
 * and the app's own `websocket.disconnect()` drops it, there or during the back-off: no socket is
 * made against the app's wish.
 * Fake timers, waits on events; a real Hocuspocus server on 127.0.0.1; the close handshake is held
 * at the client's socket until the test lets it go.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { DELAY_MS, FAKED, hocuspocusPerFile } from "./hocuspocus-per-file.ts";
import { until } from "./wait.ts";

const { server, cleanups } = hocuspocusPerFile();

/** A device whose token requests wait for the test, and whose sockets' closes it can hold. */
function device(room: string) {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const held: (() => void)[] = [];
  const state = { sockets: 0, holding: false };
  const Slow = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      state.sockets++;
    }
    override close(code?: number, reason?: string): void {
      if (state.holding) held.push(() => super.close(code, reason));
      else super.close(code, reason);
    }
  };
  const asked: ((error: Error) => void)[] = [];
  const token = () => new Promise<string>((_, reject) => asked.push(reject));
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { url: server().url, room, token, WebSocketPolyfill: Slow, reconnectDelayMs: DELAY_MS });
  cleanups.push(() => ((state.holding = false), held.splice(0).forEach((close) => close()), conn.destroy(), doc.destroy()));
  const ws = conn.websocket;
  /** Lets the held closes go and waits for the socket's "disconnect". */
  const release = async () => {
    state.holding = false;
    for (const close of held.splice(0)) close();
    await until(ws, "status", () => ws.status === "disconnected");
  };
  return { conn, ws, state, asked, release };
}

describe("connectHocuspocus: a passing failure's reconnect waiting for a slow close", () => {
  it("a later passing failure replaces it: the close reconnects no sooner than the later back-off (2 × the delay)", async () => {
    const { ws, state, asked, release } = device("hp-slow-close-later-failure");
    await until(ws, "status", () => ws.status === "connected");
    // The link drops while the token is awaited; the provider's next socket asks again.
    (ws.webSocket as unknown as WebSocket).terminate();
    while (asked.length < 2) {
      await until(ws, "status", () => ws.status !== "connecting");
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(state.sockets).toBe(2);

    // The second socket's token request fails: its close handshake outlasts the back-off.
    state.holding = true;
    asked[1]!(new Error("fetch /api/token: 503"));
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(ws.status).toBe("connected");
    // The first socket's request fails too, later: a back-off of 2 × the delay from now.
    asked[0]!(new Error("fetch /api/token: 503"));
    await vi.advanceTimersByTimeAsync(0);
    await release();
    expect(state.sockets).toBe(2);

    await vi.advanceTimersByTimeAsync(2 * DELAY_MS - 1);
    expect(state.sockets).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.sockets).toBe(3);
  }, 30_000);

  it("the app's websocket.disconnect() while it waits for the close: the close reconnects nothing", async () => {
    const { ws, state, asked, release } = device("hp-slow-close-app-disconnect");
    await until(ws, "status", () => ws.status === "connected");
    state.holding = true;
    asked[0]!(new Error("fetch /api/token: 503"));
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(ws.status).toBe("connected");

    ws.disconnect();
    await release();
    await vi.advanceTimersByTimeAsync(10 * DELAY_MS);
    expect(state.sockets).toBe(1);
    expect(ws.status).toBe("disconnected");
  }, 30_000);

  it("the app's websocket.disconnect() during the back-off: its end reconnects nothing", async () => {
    const { ws, state, asked } = device("hp-back-off-app-disconnect");
    await until(ws, "status", () => ws.status === "connected");
    asked[0]!(new Error("fetch /api/token: 503"));
    await until(ws, "status", () => ws.status === "disconnected");

    ws.disconnect();
    await vi.advanceTimersByTimeAsync(10 * DELAY_MS);
    expect(state.sockets).toBe(1);
    expect(ws.status).toBe("disconnected");
  }, 30_000);
});
