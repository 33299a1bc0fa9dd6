/**
 * README ("The store knows when it is in sync"): a device whose socket to the sync server is open
 * but whose sync never completes (a server that accepts the connection and never answers) makes
 * its first claim once the wait for the initial sync times out (SYNC_WAIT_MS), then proceeds; and
 * that wait counts for the connection: a later claim on the same unanswered connection waits only
 * its settle window, not the cap again. Fake timers: nothing moves unless the test advances it.
 */
import { afterEach, expect, it, vi } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import * as Y from "yjs";
import { SYNC_WAIT_MS } from "../../src/core/connectors.ts";
import { connectPeers, createSharedFetchStore, DEFAULT_SETTLE_MS } from "../../src/index.ts";
import { nextEvent } from "./wait.ts";

afterEach(() => vi.useRealTimers());

it("an open connection that never syncs: the first claim waits out the cap, a later one only its window", async () => {
  const silent = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => silent.once("listening", resolve));
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
  const doc = new Y.Doc();
  const url = `ws://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const conn = connectPeers(doc, { url, room: "silent", WebSocketPolyfill: WebSocket });
  const sent: string[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    sent.push(new URL(String(input)).pathname);
    return new Response("{}");
  };
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, locks: null, fetch });
  try {
    await nextEvent(conn.provider, "status", (e: { status: string }) => e.status === "connected");
    const first = store.ensure({ url: "https://api.example.test/first" });
    await vi.advanceTimersByTimeAsync(SYNC_WAIT_MS - 1);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1 + DEFAULT_SETTLE_MS);
    expect(sent).toEqual(["/first"]);
    await expect(first).resolves.toMatchObject({ status: "success" });

    const later = store.ensure({ url: "https://api.example.test/later" });
    await vi.advanceTimersByTimeAsync(DEFAULT_SETTLE_MS);
    expect(sent).toEqual(["/first", "/later"]);
    await expect(later).resolves.toMatchObject({ status: "success" });
  } finally {
    store.destroy();
    conn.destroy();
    doc.destroy();
    silent.close();
  }
});
