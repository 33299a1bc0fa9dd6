/**
 * The app's own `websocket.disconnect()` holds until the app connects again, also when it comes
 * within the provider's back-off after a lost connection. @hocuspocus/provider reconnects a lost
 * connection from a timer that never reads `shouldConnect` again: before, a disconnect() within
 * that delay got its socket back when the timer ran out (synced, reconnecting on its own), and a
 * disconnect() and connect() within it had the app's socket, still opening, replaced by another.
 * Fake timers, waits on events; a real Hocuspocus server on 127.0.0.1; the link drops at the
 * client's socket (terminate(): no close frame, 1006), and a socket's "open" can be held.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { DELAY_MS, FAKED, hocuspocusPerFile } from "./hocuspocus-per-file.ts";
import { gatedSockets } from "./gated-socket.ts";
import { until } from "./wait.ts";

const { server, cleanups } = hocuspocusPerFile();

/** A synced device whose sockets the test counts, and whose sockets' "open" it can hold. */
async function syncedDevice(room: string) {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const { Gated, state, opens, open } = gatedSockets();
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { url: server().url, room, token: "t", WebSocketPolyfill: Gated, reconnectDelayMs: DELAY_MS });
  cleanups.push(() => (conn.destroy(), doc.destroy()));
  const ws = conn.websocket;
  await until(conn.provider, "synced", () => conn.provider.isSynced);
  expect(state.sockets).toBe(1);
  /** The link drops (no close frame): the provider arms its reconnect, `DELAY_MS` from now. */
  const drop = async () => {
    (ws.webSocket as unknown as WebSocket).terminate();
    await until(ws, "status", () => ws.status === "disconnected");
  };
  return { conn, ws, state, drop, open, opens };
}

describe("connectHocuspocus: the app's websocket.disconnect() within the back-off of a lost connection", () => {
  it("holds: no socket when the back-off ends, and the app's connect() later makes one", async () => {
    const d = await syncedDevice("hp-app-disconnect-holds");
    await d.drop();
    await vi.advanceTimersByTimeAsync(DELAY_MS / 2);
    d.ws.disconnect();

    await vi.advanceTimersByTimeAsync(DELAY_MS * 10);
    expect(d.state.sockets).toBe(1);
    expect(d.ws.status).toBe("disconnected");
    expect(d.ws.shouldConnect).toBe(false);

    void d.ws.connect();
    await until(d.conn.provider, "synced", () => d.conn.provider.isSynced);
    expect(d.state.sockets).toBe(2);
  }, 30_000);

  it("the app disconnects and connects again within it: the back-off's end leaves the app's socket, still opening, alone", async () => {
    const d = await syncedDevice("hp-app-reconnect-in-back-off");
    await d.drop();
    await vi.advanceTimersByTimeAsync(DELAY_MS / 2);
    d.ws.disconnect();
    d.state.holdingOpen = true;
    let settled = false;
    void d.ws.connect().then(() => (settled = true));
    while (d.opens.length === 0) await vi.advanceTimersByTimeAsync(0);
    expect(d.state.sockets).toBe(2);

    // The lost connection's back-off runs out while the app's socket has not opened yet.
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(d.state.sockets).toBe(2);

    d.open();
    await until(d.conn.provider, "synced", () => d.conn.provider.isSynced);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    expect(d.state.sockets).toBe(2);
  }, 30_000);
});
