/**
 * A y-websocket server refuses a connection for good by closing it with a code from 4400 to 4499
 * (y-websocket's convention, e.g. 4401 for a refused token): the provider then stops reconnecting.
 * connectPeers releases the connection as destroy() does: `whenSynced` settles (it never did, so
 * an app that awaited it hung), and a store made with its awareness follows the connection the
 * app makes next with a new token (it stayed with the stopped one: no other device saw it again,
 * nor it them). The refusing server is a gate in front of nothing; the next connection reaches a
 * real sync server, both on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { nextEvent } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
let gate: WebSocketServer;
beforeAll(async () => {
  server = await startSyncServer();
  gate = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  gate.on("connection", (socket) => socket.close(4401, "permission revoked"));
  await new Promise((resolve) => gate.once("listening", resolve));
});
afterAll(async () => {
  await new Promise((resolve) => gate.close(resolve));
  await server.close();
});

const present = (store: SharedFetchStoreWithExtras, other: SharedFetchStoreWithExtras) =>
  store.inspect().replicas.some((r) => r.replicaId === other.replicaId && r.present);

describe("connectPeers: a connection the server closes for good (4401)", () => {
  it("whenSynced settles, and the store follows the connection made next: present to the other device, and sees it", async () => {
    const room = `closed-${Math.random().toString(36).slice(2)}`;
    const docB = new Y.Doc();
    const connB = connectPeers(docB, { url: server.url, room, WebSocketPolyfill: WebSocket });
    const b = createSharedFetchStore({ doc: docB, awareness: connB.awareness });

    const docA = new Y.Doc();
    const { port } = gate.address() as { port: number };
    const refused = connectPeers(docA, { url: `ws://127.0.0.1:${port}`, room, params: { token: "old" }, WebSocketPolyfill: WebSocket });
    let settled = false;
    void refused.whenSynced.then(() => (settled = true));
    const a = createSharedFetchStore({ doc: docA, awareness: refused.awareness });
    let again: ReturnType<typeof connectPeers> | undefined;
    try {
      const [closed] = await nextEvent<[{ code: number }]>(refused.provider, "closed");
      expect(closed.code).toBe(4401);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(settled).toBe(true);

      again = connectPeers(docA, { url: server.url, room, params: { token: "new" }, WebSocketPolyfill: WebSocket });
      await again.whenSynced;
      await vi.waitFor(() => expect([present(a, b), present(b, a)]).toEqual([true, true]), { timeout: 10_000, interval: 20 });
      expect(a.inspect().settle?.why).not.toBe("alone");
    } finally {
      a.destroy();
      b.destroy();
      again?.destroy();
      refused.destroy();
      connB.destroy();
    }
  }, 30_000);
});
