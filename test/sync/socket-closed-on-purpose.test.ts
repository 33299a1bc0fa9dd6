/**
 * A socket that opened and was closed on purpose before its initial sync: by the server, with a
 * close frame (a token refused after the upgrade, 1008; a server full, 1013), or by the app's
 * `provider.disconnect()`. Unlike a link that drops mid-sync (no close frame, 1006: the next attempt
 * likely syncs, sync-cut-midway.test.ts), nothing says a next attempt syncs: the server refuses
 * again, the app connects no more. So the first claims stop waiting at once, as after a refused
 * connection (README: "A connection that fails before it synced ends the wait at once"); they
 * waited out the whole SYNC_WAIT_MS for it. Read on the connector's `whenSynced`, the promise the
 * stores' first claims wait on (no clock: the bound never ends it within the test's events).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import * as Y from "yjs";
import { connectorsOf } from "../../src/core/connectors.ts";
import { connectPeers } from "../../src/index.ts";
import { frameRelay } from "./frame-relay.ts";
import { nextEvent } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
let refusing: WebSocketServer;
beforeAll(async () => {
  server = await startSyncServer();
  // Accepts the upgrade, then refuses the socket (an auth check made once connected).
  refusing = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  refusing.on("connection", (socket) => socket.close(1008, "token refused"));
  await new Promise((resolve) => refusing.once("listening", resolve));
});
afterAll(async () => {
  await new Promise((resolve) => refusing.close(resolve));
  await server.close();
});

/** Whether the wait the stores' first claims make on this doc's connector has ended, once the events due now ran. */
async function firstClaimsWait(doc: Y.Doc): Promise<"ended" | "waiting"> {
  let ended = false;
  void connectorsOf(doc)[0]!.whenSynced.then(() => (ended = true));
  await new Promise((resolve) => setImmediate(resolve));
  return ended ? "ended" : "waiting";
}

const isStep2 = (frame: Uint8Array) => frame[0] === 0 && frame[1] === 1;

describe("connectPeers: a socket closed on purpose before its initial sync", () => {
  it("the server closes the socket it accepted (1008): the first claims' wait ends at once", async () => {
    const doc = new Y.Doc();
    const { port } = refusing.address() as { port: number };
    const conn = connectPeers(doc, { url: `ws://127.0.0.1:${port}`, room: "refused", WebSocketPolyfill: WebSocket });
    try {
      await nextEvent(conn.provider, "status", ({ status }: { status: string }) => status === "connected");
      const [event] = await nextEvent<[{ code: number }]>(conn.provider, "connection-close");
      expect(event.code).toBe(1008);
      expect(await firstClaimsWait(doc)).toBe("ended");
    } finally {
      conn.destroy();
      doc.destroy();
    }
  });

  it("the app's provider.disconnect() while the sync is under way: the first claims' wait ends at once", async () => {
    const relay = await frameRelay(server.url);
    // The server's answer (its sync step 2) never arrives: the socket stays open, unsynced.
    relay.toClient = (frame) => !isStep2(frame);
    const doc = new Y.Doc();
    const conn = connectPeers(doc, { url: relay.url, room: `mid-${Math.random().toString(36).slice(2)}`, WebSocketPolyfill: WebSocket });
    try {
      await nextEvent(conn.provider, "status", ({ status }: { status: string }) => status === "connected");
      conn.provider.disconnect();
      expect(await firstClaimsWait(doc)).toBe("ended");
    } finally {
      conn.destroy();
      doc.destroy();
      await relay.close();
    }
  });
});
