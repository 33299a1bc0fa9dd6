/**
 * connectPeers(doc).destroy(), then connectPeers(doc) again (an effect's cleanup and re-run, a
 * "go offline / online" toggle written as destroy + connect) while the store made on that doc
 * lives on: the store follows the new connection's awareness. It used to keep the first one,
 * destroyed with it: the other devices never saw this replica again (no presence takeover when it
 * crashed), and it saw nobody, so it believed itself alone and claimed unfenced — a second device
 * asking at once duplicated.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});

it("a store whose doc is connected again after connectPeers(...).destroy() is present to the other devices, and sees them", async () => {
  const room = `reconnect-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const docA = new Y.Doc();
  const first = connectPeers(docA, { url: server.url, room, WebSocketPolyfill: WebSocket });
  const a = createSharedFetchStore({ doc: docA, awareness: first.awareness, fetch: host.fetch });
  const docB = new Y.Doc();
  const connB = connectPeers(docB, { url: server.url, room, WebSocketPolyfill: WebSocket });
  const b = createSharedFetchStore({ doc: docB, awareness: connB.awareness, fetch: host.fetch });
  const present = (s: typeof a, other: typeof a) => s.inspect().replicas.some((r) => r.replicaId === other.replicaId && r.present);
  let second: ReturnType<typeof connectPeers> | undefined;
  try {
    await vi.waitFor(() => expect(present(b, a) && present(a, b)).toBe(true));
    first.destroy();
    second = connectPeers(docA, { url: server.url, room, WebSocketPolyfill: WebSocket });
    await second.whenSynced;
    await vi.waitFor(() => {
      expect(present(b, a)).toBe(true);
      expect(present(a, b)).toBe(true);
    });
    expect(a.inspect().settle?.why).not.toBe("alone");
  } finally {
    a.destroy();
    b.destroy();
    second?.destroy();
    connB.destroy();
  }
});
