/**
 * Two passing failures heard together (an auth backend's blip answering, late, the token requests
 * of two sockets: one dropped while its token was awaited, and the provider's next one) arm one
 * reconnect: the later failure's back-off replaces the earlier one's. Before, both timers ran: a
 * socket was made at the first back-off, and its timer, forgotten, outlived destroy() (there
 * guarded, a connect after destroy() does nothing).
 * Fake timers, waits on events; a real Hocuspocus server on 127.0.0.1.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { DELAY_MS, FAKED, hocuspocusPerFile } from "./hocuspocus-per-file.ts";
import { until } from "./wait.ts";

const { server, cleanups } = hocuspocusPerFile();

describe("connectHocuspocus: two passing failures heard together", () => {
  it("one reconnect, after the later failure's back-off (2 × the delay), none at the first one's", async () => {
    vi.useFakeTimers({ toFake: [...FAKED] });
    let sockets = 0;
    const Counting = class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols);
        sockets++;
      }
    };
    const asked: ((error: Error) => void)[] = [];
    const token = () => new Promise<string>((_, reject) => asked.push(reject));
    const doc = new Y.Doc();
    const conn = connectHocuspocus(doc, {
      url: server().url,
      room: "hp-two-failures",
      token,
      WebSocketPolyfill: Counting,
      reconnectDelayMs: DELAY_MS,
    });
    cleanups.push(() => (conn.destroy(), doc.destroy()));
    const ws = conn.websocket;
    const settled = () => until(ws, "status", () => ws.status !== "connecting");
    await until(ws, "status", () => ws.status === "connected");
    // The link drops while the token is awaited; the provider's next socket asks again.
    (ws.webSocket as unknown as WebSocket).terminate();
    while (asked.length < 2) {
      await settled();
      await vi.advanceTimersByTimeAsync(50);
    }
    for (const reject of asked) reject(new Error("fetch /api/token: 503"));
    await vi.advanceTimersByTimeAsync(0);
    await until(ws, "status", () => ws.status === "disconnected");
    expect(sockets).toBe(2);

    await vi.advanceTimersByTimeAsync(2 * DELAY_MS - 1);
    expect(sockets).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toBe(3);
  }, 30_000);
});
