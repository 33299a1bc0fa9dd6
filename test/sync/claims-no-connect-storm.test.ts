/**
 * A claim made while connectPeers' socket is down connects at once and waits for that sync (a
 * device back online: reconnect-joins-in-flight.test.tsx). When that wait ends with the socket
 * closed unsynced (the server down), later claims neither wait nor connect again until the
 * connection syncs: each would otherwise open a connection of its own, past y-websocket's back-off
 * (K tabs × devices against a server that is down), and a connect that fails slowly would delay
 * every request by as long. Fake timers: y-websocket's own back-off never fires here, so every
 * connection attempt seen is one a claim made.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { nextEvent } from "./wait.ts";

afterEach(() => vi.useRealTimers());

describe("claims against a sync server that is down", () => {
  it("after one claim's reconnect was refused, later claims make no connection of their own until a sync", async () => {
    const port = await freePort(); // free a moment ago: nothing listens there
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
    const doc = new Y.Doc();
    const conn = connectPeers(doc, { url: `ws://127.0.0.1:${port}`, room: "storm", WebSocketPolyfill: WebSocket });
    let closes = 0;
    conn.provider.on("connection-close", () => closes++);
    const sent: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return new Response(JSON.stringify({ ok: true }));
    };
    const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null, fetch });
    try {
      await nextEvent(conn.provider, "connection-close");
      // Past the settle window, cut off: the next claim tries the connection once more.
      await vi.advanceTimersByTimeAsync(1_000);
      const first = store.ensure({ url: "https://api.example.test/a" });
      await vi.waitFor(() => expect(sent).toContain("https://api.example.test/a"), { timeout: 5_000, interval: 5 });
      await expect(first).resolves.toMatchObject({ status: "success" });
      const seen = closes;
      for (const k of ["b", "c", "d"]) {
        const asked = store.ensure({ url: `https://api.example.test/${k}` });
        await vi.advanceTimersByTimeAsync(0);
        await expect(asked).resolves.toMatchObject({ status: "success" });
      }
      // Real time for a refusal to arrive, had a connection been opened.
      vi.useRealTimers();
      await new Promise((r) => setTimeout(r, 100));
      expect(sent).toHaveLength(4);
      expect(closes).toBe(seen);
    } finally {
      store.destroy();
      conn.destroy();
      doc.destroy();
    }
  });
});
