/**
 * README, Design notes ("Across devices, the sync server's order decides"): connectPeers measures
 * its round trips "with the sync protocol itself (every second until five are measured, then
 * every 15 s)": a probe is timed as the one before it is sent, so the one timed while the fifth
 * is still in flight comes a second later too, and the next 15 s after it. And "each connector publishes its 95th percentile in its awareness" for the other
 * devices' windows. A real y-websocket server on 127.0.0.1; the probes are the sync step 1s the
 * client sends once in sync, counted on its socket; only setTimeout is faked, so the socket is real.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers } from "../../src/index.ts";
import { TRIP_FIELD } from "../../src/sync/connection.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => vi.useRealTimers());

/** A `ws` socket that counts the sync step 1s it sends (message type 0, sync message 0). */
function countingSocket() {
  const sent = { step1: 0 };
  class Counting extends WebSocket {
    override send(data: unknown, ...rest: unknown[]) {
      const bytes = data instanceof Uint8Array ? data : undefined;
      if (bytes && bytes[0] === 0 && bytes[1] === 0) sent.step1++;
      return (super.send as (...args: unknown[]) => void)(data, ...rest);
    }
  }
  return { sent, WebSocketPolyfill: Counting };
}

describe("connectPeers' round-trip probes (README: every second until five are measured, then every 15 s)", () => {
  it("probes once a second while fewer than five trips are measured, then every 15 s; each answer publishes the p95 in its awareness", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const doc = new Y.Doc();
    const { sent, WebSocketPolyfill } = countingSocket();
    const conn = connectPeers(doc, { url: server.url, room: `probes-${Math.random().toString(36).slice(2)}`, WebSocketPolyfill });
    const published: unknown[] = [];
    conn.awareness.on("update", (_: unknown, origin: unknown) => {
      if (origin === "local" && conn.awareness.getLocalState()?.[TRIP_FIELD] !== undefined)
        published.push(conn.awareness.getLocalState()![TRIP_FIELD]);
    });
    try {
      await conn.whenSynced;
      const atSync = sent.step1; // the provider's own step 1 of the initial sync
      // Waits on the real socket, not on timers (vi.waitFor would advance the faked ones).
      const answered = async (count: number) => {
        const until = Date.now() + 5000;
        while (published.length < count && Date.now() < until) await new Promise((r) => setImmediate(r));
        expect(published).toHaveLength(count);
      };
      // Each probe's answer awaited before the next is due: the sixth is timed with four measured.
      for (let probe = 1; probe <= 6; probe++) {
        vi.advanceTimersByTime(999);
        expect(sent.step1 - atSync).toBe(probe - 1);
        vi.advanceTimersByTime(1);
        expect(sent.step1 - atSync).toBe(probe);
        await answered(probe); // the answer is the sample: the next probe is timed from it
      }
      expect(published.every((ms) => typeof ms === "number" && ms >= 0)).toBe(true);
      vi.advanceTimersByTime(14_999);
      expect(sent.step1 - atSync).toBe(6);
      vi.advanceTimersByTime(1);
      expect(sent.step1 - atSync).toBe(7);
      await answered(7);
      vi.advanceTimersByTime(15_000);
      expect(sent.step1 - atSync).toBe(8);
      await answered(8);
    } finally {
      conn.destroy();
      doc.destroy();
    }
  });
});
