/**
 * `store.destroy()` on the device that runs a key, its connection left open (a logout keeps the
 * app syncing): the other device, which yielded to it and stood its claim in its own place (see
 * README "Across devices, the sync server's order decides"), must take over at once. The
 * destroyed store's release deletes only the entries it has seen; the stand-in copy of its claim,
 * still on its way to it, is never released, so its claim stood in every doc for a whole lease.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type StoreEvent } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});

/** Holds what the server sends to one device, then delivers it in order, one task per message. */
class Inbound {
  held = false;
  private queue: (() => void)[] = [];

  socket(): typeof WebSocket {
    const deliver = (fn: () => void) => (this.held ? this.queue.push(fn) : fn());
    const { get, set } = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage")!;
    type Listener = ((event: WebSocket.MessageEvent) => void) | null;
    class GatedSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        Object.defineProperty(this, "onmessage", {
          get: () => get!.call(this) as Listener,
          set: (listener: Listener) => set!.call(this, listener && ((event: WebSocket.MessageEvent) => deliver(() => listener(event)))),
        });
      }
    }
    return GatedSocket as unknown as typeof WebSocket;
  }

  async release(): Promise<void> {
    while (this.queue.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.queue.shift()!();
    }
    this.held = false;
  }
}

const LEASE = 60_000; // far longer than the test: only an event can explain a takeover
const req = { url: "https://api.example.test/destroyed" };

function device(room: string, clientID: number, host: Host, name: string) {
  const inbound = new Inbound();
  const doc = new Y.Doc();
  doc.clientID = clientID;
  const conn = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: inbound.socket() });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), leaseMs: LEASE, locks: null });
  const events: StoreEvent[] = [];
  store.onEvent((e) => events.push(e));
  return { doc, conn, store, events, inbound, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe("store.destroy() mid-claim across devices", () => {
  it("the device that yielded takes over at once when the claimant's store is destroyed, its connection still open", async () => {
    const room = `destroy-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    // The doc's election favours b's claim (the lane creator's clientID): b stands a's claim in its place as it yields.
    const a = device(room, 1, host, "a");
    const b = device(room, 2, host, "b");
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await vi.waitFor(() => {
        expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true);
        expect(b.store.inspect().replicas.some((r) => r.replicaId === a.store.replicaId && r.present)).toBe(true);
      });
      b.inbound.held = true; // b claims before a's claim reaches it
      void a.store.ensure(req).catch(() => {});
      await host.whenCalls(1);
      a.inbound.held = true; // from now on a hears nothing of b
      const waiting = b.store.ensure(req);
      waiting.catch(() => {});
      await vi.waitFor(() => expect(b.events.some((e) => e.type === "claimed")).toBe(true));
      await b.inbound.release();
      await vi.waitFor(() => expect(b.events).toContainEqual(expect.objectContaining({ type: "yielded", to: a.store.replicaId })));
      expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false });

      a.store.destroy(); // releases the claim it knows of; its request is aborted
      expect(host.calls[0]!.aborted).toBe(true);
      // Long before the 60 s lease (a bound for the failure message, not a timing claim).
      await vi.waitFor(() => expect(host.calls).toHaveLength(2), { timeout: 5000 });
      expect(host.calls.map((call) => call.from)).toEqual(["a", "b"]);
      host.calls[1]!.respond(200, { by: "b" });
      await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "b" } });
      await a.inbound.release();
    } finally {
      a.close();
      b.close();
    }
  }, 15_000);
});
