/**
 * A tab that is also a device: connectTabs and connectPeers on one doc, the store given the tabs'
 * awareness as Usage writes it (`awareness: tabs.awareness`, then "Devices: connectPeers(doc, …)").
 * The other devices' presence is only in the peers' awareness. Before, such a store counted no
 * other device present: every device claimed eagerly, unfenced (each sent every request asked at
 * once), and a device that left kept its claim for a whole lease (invariant 3: presence is the
 * event that ends it).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { connectorsOf } from "../../src/core/connectors.ts";
import { windowForTrip } from "../../src/core/trips.ts";
import { Host } from "../../sim/host.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});

const LEASE = 60_000; // far longer than the test: only presence can explain a takeover
const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

/** One device: its own tabs group (BroadcastChannel), the sync server, a store on the tabs' awareness. */
function device(room: string, host: Host, name: string, peersFirst = true) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: unique("tabs"), indexeddb: false });
  const connect = () => connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });
  let peers = peersFirst ? connect() : undefined;
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(name), leaseMs: LEASE, locks: null });
  peers ??= connect();
  const conn = peers;
  const sees = (other: { store: { replicaId: string } }) =>
    store.inspect().replicas.some((r) => r.replicaId === other.store.replicaId && r.present);
  return { doc, peers: conn, store, sees, close: () => (store.destroy(), conn.destroy(), tabs.destroy(), doc.destroy()) };
}

const trip = (doc: Y.Doc) =>
  connectorsOf(doc)
    .find((c) => c.crossDevice)
    ?.tripMs?.();

describe("connectTabs and connectPeers on one doc, the store on the tabs' awareness (Usage + Devices)", () => {
  it("each device counts the other present; keys asked by both at once are sent once each (claims fenced, not eager)", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { ok: true }, delayMs: 100 });
    const room = unique("both");
    const a = device(room, host, "a");
    const b = device(room, host, "b");
    try {
      await Promise.all([a.peers.whenSynced, b.peers.whenSynced]);
      await vi.waitFor(() => expect(a.sees(b) && b.sees(a)).toBe(true), { timeout: 5000, interval: 20 });
      // In sync, trips measured and the window passed: a device that thought itself alone would claim eagerly.
      await vi.waitFor(() => expect(trip(a.doc) !== undefined && trip(b.doc) !== undefined).toBe(true), { timeout: 5000, interval: 50 });
      await new Promise((r) => setTimeout(r, windowForTrip(Math.max(trip(a.doc)!, trip(b.doc)!)) + 20));
      const eager: boolean[] = [];
      for (const s of [a.store, b.store])
        s.onEvent((e) => {
          if (e.type !== "dispatched") return;
          eager.push(s.claims().some(([, c]) => c.replicaId === s.replicaId && c.eager === true));
        });
      for (let i = 0; i < 5; i++) {
        const req = { url: `https://api.example.test/both/${i}` };
        await Promise.all([a.store.ensure(req), b.store.ensure(req)]);
      }
      expect(host.calls).toHaveLength(5);
      expect(eager).not.toContain(true);
    } finally {
      a.close();
      b.close();
    }
  }, 20_000);

  it("a device that leaves has its claim taken over at once, also when connectPeers came after the store", async () => {
    const host = new Host();
    const room = unique("leave");
    const a = device(room, host, "a");
    const b = device(room, host, "b", false);
    const req = { url: "https://api.example.test/leave" };
    try {
      await Promise.all([a.peers.whenSynced, b.peers.whenSynced]);
      await vi.waitFor(() => expect(a.sees(b) && b.sees(a)).toBe(true), { timeout: 5000, interval: 20 });
      void a.store.ensure(req).catch(() => {});
      await host.whenCalls(1);
      const waiting = b.store.ensure(req);
      await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false }), {
        timeout: 5000,
        interval: 20,
      });
      a.peers.destroy(); // the device goes away (its page closed): the server removes its presence
      await host.whenCalls(2);
      expect(host.calls[1]!.from).toBe("b");
      host.calls[1]!.respond(200, { by: "b" });
      await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "b" } });
    } finally {
      a.close();
      b.close();
    }
  }, 20_000);
});
