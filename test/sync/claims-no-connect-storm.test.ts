/**
 * A claim made while connectPeers' (or connectHocuspocus') socket is down connects at once and waits for that sync (a
 * device back online: reconnect-joins-in-flight.test.tsx). When that wait ends with the socket
 * closed unsynced (the server down), later claims neither wait nor connect again until the
 * connection syncs: each would otherwise open a connection of its own, past y-websocket's back-off
 * (K tabs × devices against a server that is down), and a connect that fails slowly would delay
 * every request by as long. Fake timers: the provider's own back-off never fires here, so every
 * connection attempt seen is one a claim made.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { connectPeers, createSharedFetchStore, type Connection } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { nextEvent } from "./wait.ts";

afterEach(() => vi.useRealTimers());

describe("claims against a sync server that is down", () => {
  it("y-websocket: after one claim's reconnect was refused, later claims make no connection of their own until a sync", async () => {
    const port = await freePort(); // free a moment ago: nothing listens there
    fakeTimers();
    const doc = new Y.Doc();
    const conn = connectPeers(doc, { url: `ws://127.0.0.1:${port}`, room: "storm", WebSocketPolyfill: WebSocket });
    let closes = 0;
    conn.provider.on("connection-close", () => closes++);
    await claimsWhileDown(
      doc,
      conn,
      () => nextEvent(conn.provider, "connection-close"),
      () => closes,
    );
  });

  it("Hocuspocus: after one claim's reconnect was refused, later claims make no connection of their own until a sync", async () => {
    const port = await freePort();
    fakeTimers();
    const doc = new Y.Doc();
    // Its own back-off far beyond the timers advanced here.
    const conn = connectHocuspocus(doc, {
      url: `ws://127.0.0.1:${port}`,
      room: "storm",
      token: "t",
      WebSocketPolyfill: WebSocket,
      reconnectDelayMs: 60_000,
    });
    let closes = 0;
    conn.websocket.on("disconnect", () => closes++);
    await claimsWhileDown(
      doc,
      conn,
      () => nextEvent(conn.websocket, "disconnect"),
      () => closes,
    );
  });
});

const fakeTimers = () =>
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });

async function claimsWhileDown(doc: Y.Doc, conn: Connection, failed: () => Promise<unknown>, closes: () => number) {
  const sent: string[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    sent.push(String(input));
    return new Response(JSON.stringify({ ok: true }));
  };
  const firstFailure = failed();
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null, fetch });
  try {
    await vi.advanceTimersByTimeAsync(0); // a connection attempt the provider makes after a timer of 0
    await firstFailure;
    // Past the settle window, cut off: the next claim tries the connection once more.
    await vi.advanceTimersByTimeAsync(1_000);
    const before = closes();
    const first = store.ensure({ url: "https://api.example.test/a" });
    await vi.waitFor(() => expect(sent).toContain("https://api.example.test/a"), { timeout: 5_000, interval: 5 });
    await expect(first).resolves.toMatchObject({ status: "success" });
    const seen = closes();
    expect(seen).toBe(before + 1); // the first claim's own try, refused
    for (const k of ["b", "c", "d"]) {
      const asked = store.ensure({ url: `https://api.example.test/${k}` });
      await vi.advanceTimersByTimeAsync(0);
      await expect(asked).resolves.toMatchObject({ status: "success" });
    }
    // Real time for a refusal to arrive, had a connection been opened.
    vi.useRealTimers();
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toHaveLength(4);
    expect(closes()).toBe(seen);
  } finally {
    store.destroy();
    conn.destroy();
    doc.destroy();
  }
}
