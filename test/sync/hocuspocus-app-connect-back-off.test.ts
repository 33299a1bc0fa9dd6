/**
 * The app's own `websocket.connect()` while a passing failure's reconnect is pending (the back-off
 * after a token function that threw): the app's connection is the one the back-off was waiting
 * to make, so the pending reconnect goes. Before, its timer still ran out later: while the app's
 * socket was still opening it started a second one in its place (two sockets for one connect, and
 * the app's `connect()` promise never settled); once the app's socket was open it waited for that
 * socket's close and then reconnected at once, skipping the provider's own delay.
 * Fake timers, waits on events; a real Hocuspocus server on 127.0.0.1; a socket's "open" can be
 * held at the client until the test lets it go.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { DELAY_MS, FAKED, hocuspocusPerFile } from "./hocuspocus-per-file.ts";
import { gatedSockets } from "./gated-socket.ts";
import { until } from "./wait.ts";

const { server, cleanups } = hocuspocusPerFile();

/** A device whose token requests the test answers, and whose sockets' "open" it can hold. */
function device(room: string) {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const { Gated, state, opens, open } = gatedSockets();
  const asked: { resolve: (token: string) => void; reject: (error: Error) => void }[] = [];
  const token = () => new Promise<string>((resolve, reject) => asked.push({ resolve, reject }));
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { url: server().url, room, token, WebSocketPolyfill: Gated, reconnectDelayMs: DELAY_MS });
  cleanups.push(() => (conn.destroy(), doc.destroy()));
  const ws = conn.websocket;
  return { conn, ws, state, asked, open, opens };
}

/** A passing failure: the first socket's token request fails (an auth backend's blip); its back-off starts. */
async function passingFailure(d: ReturnType<typeof device>): Promise<void> {
  await until(d.ws, "status", () => d.ws.status === "connected");
  d.asked[0]!.reject(new Error("fetch /api/token: 503"));
  await until(d.ws, "status", () => d.ws.status === "disconnected");
  expect(d.state.sockets).toBe(1);
}

describe("connectHocuspocus: the app's websocket.connect() during a passing failure's back-off", () => {
  it("the back-off ends while the app's socket is still opening: no second socket, and the app's connect() settles", async () => {
    const d = device("hp-app-connect-opening");
    await passingFailure(d);
    await vi.advanceTimersByTimeAsync(DELAY_MS / 2);

    d.state.holdingOpen = true;
    let settled = false;
    void d.ws.connect().then(() => (settled = true));
    await until(d.ws, "status", () => d.ws.status === "connecting");
    while (d.opens.length === 0) await vi.advanceTimersByTimeAsync(0);
    expect(d.state.sockets).toBe(2);

    // The back-off runs out while the app's socket has not opened yet.
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(d.state.sockets).toBe(2);

    d.open();
    await until(d.ws, "status", () => d.ws.status === "connected");
    while (d.asked.length < 2) await vi.advanceTimersByTimeAsync(0);
    d.asked[1]!.resolve("t");
    await until(d.conn.provider, "synced", () => d.conn.provider.isSynced);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    expect(d.state.sockets).toBe(2);
  }, 30_000);

  it("the app's socket is open when the back-off ends: its later drop reconnects after the provider's delay, not at once", async () => {
    const d = device("hp-app-connect-open");
    await passingFailure(d);
    await vi.advanceTimersByTimeAsync(DELAY_MS / 2);

    void d.ws.connect();
    await until(d.ws, "status", () => d.ws.status === "connected");
    while (d.asked.length < 2) await vi.advanceTimersByTimeAsync(0);
    d.asked[1]!.resolve("t");
    await until(d.conn.provider, "synced", () => d.conn.provider.isSynced);
    // The back-off runs out while the app's socket is in sync.
    await vi.advanceTimersByTimeAsync(DELAY_MS);
    expect(d.state.sockets).toBe(2);

    // The link drops: the provider reconnects after its delay, as after any lost connection.
    (d.ws.webSocket as unknown as WebSocket).terminate();
    await until(d.ws, "status", () => d.ws.status === "disconnected");
    await vi.advanceTimersByTimeAsync(DELAY_MS - 1);
    expect(d.state.sockets).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(d.state.sockets).toBe(3);
  }, 30_000);
});
