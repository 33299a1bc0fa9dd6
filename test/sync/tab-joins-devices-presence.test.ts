/**
 * Two tabs of one browser, each a store on the tabs' awareness (Usage). A tab that connects to the
 * other devices later (connectPeers after the store: after a login, back online after an offline
 * toggle, a tab that connects only while visible) publishes itself in the devices' awareness from
 * then on. It has not left: a tab still on the tabs' awareness alone must not take its leaving
 * there for its death (invariant 3: presence leaving is the event that makes claims stale; a live
 * claimant's request in flight must not be sent again). Its orderly stop still says it left.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, connectTabs, createSharedFetchStore } from "../../src/index.ts";
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

function tab(name: string, host: Host, id: string) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(id), leaseMs: LEASE, locks: null });
  const sees = (other: { store: { replicaId: string } }) =>
    store.inspect().replicas.some((r) => r.replicaId === other.store.replicaId && r.present);
  return { doc, tabs, store, sees, close: () => (store.destroy(), tabs.destroy(), doc.destroy()) };
}

describe("a tab that connects to the devices is still present for the tabs on the tabs' awareness (invariant 3)", () => {
  it("its request in flight is not taken over, and its orderly stop is still seen as its leaving", async () => {
    const host = new Host();
    const name = unique("tabs");
    const a = tab(name, host, "a");
    const b = tab(name, host, "b");
    const req = { url: "https://api.example.test/tab-joins-devices" };
    let peers: ReturnType<typeof connectPeers> | undefined;
    try {
      await vi.waitFor(() => expect(a.sees(b) && b.sees(a)).toBe(true), { timeout: 5000, interval: 20 });
      void a.store.ensure(req).catch(() => {});
      await host.whenCalls(1);
      const waiting = b.store.ensure(req);
      waiting.catch(() => {}); // rejected by the close below if an expectation fails first
      await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false }), {
        timeout: 5000,
        interval: 20,
      });
      peers = connectPeers(a.doc, { url: server.url, room: unique("room"), WebSocketPolyfill: WebSocket });
      await peers.whenSynced;
      await new Promise((r) => setTimeout(r, 300));
      expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false });
      expect(host.calls).toHaveLength(1);
      expect(b.sees(a)).toBe(true);
      host.calls[0]!.respond(200, { by: "a" });
      await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
      a.store.destroy();
      await vi.waitFor(() => expect(b.sees(a)).toBe(false), { timeout: 5000, interval: 20 });
    } finally {
      peers?.destroy();
      a.close();
      b.close();
    }
  }, 20_000);
});
