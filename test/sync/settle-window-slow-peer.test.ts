/**
 * README, Design notes, "Across devices, the sync server's order decides": an eager claim (a
 * device alone, long in sync) is covered by the newcomer waiting out the window from its sync.
 * That window was sized from the newcomer's own trips only. A device on a slow link (latency
 * injected by a TCP proxy on 127.0.0.1) claims eagerly before it hears the newcomer, and its claim
 * takes its own round trip to reach the server: a newcomer on a fast link had fenced, run and sent
 * the request by then — two requests for one key. Each connector now publishes its measured trip
 * in its presence, and a window covers the slowest present device's.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { TripSamples } from "../../src/core/trips.ts";
import { sharedTrips, TRIP_FIELD } from "../../src/sync/connection.ts";
import { Host } from "../../sim/host.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

let server: SyncServer;
let slow: TcpProxy;
beforeAll(async () => {
  server = await startSyncServer();
  slow = await startTcpProxy(server.url);
  slow.delayMs = 300; // each way: a 600 ms round trip
});
afterAll(async () => {
  await slow.close();
  await server.close();
});

function device(url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null });
  return { doc, conn, store, close: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe("the settle window across devices covers a slower device's round trip", () => {
  it("a device on a slow link claims eagerly as a newcomer on a fast one syncs; both ask at once: one request", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { ok: true } });
    const room = `slow-${Math.random().toString(36).slice(2)}`;
    const a = device(slow.url, room, host, "slow");
    // A bare doc (no store): tells when the server has the slow device's published trip.
    const watcherDoc = new Y.Doc();
    const watcher = connectPeers(watcherDoc, { url: server.url, room, WebSocketPolyfill: WebSocket });
    let b: ReturnType<typeof device> | undefined;
    try {
      await a.conn.whenSynced;
      // Its trips measured (a probe a second) and in sync for longer than their window: eager.
      await vi.waitFor(
        () => {
          expect(watcher.awareness.getStates().get(a.doc.clientID)?.[TRIP_FIELD]).toBeGreaterThanOrEqual(600);
          expect(a.store.inspect().settle).toMatchObject({ eager: true, why: "alone" });
        },
        { timeout: 8000, interval: 50 },
      );
      b = device(server.url, room, host, "fast");
      await b.conn.whenSynced;
      // The slow device has not heard of the newcomer yet (its presence is 300 ms away): eager.
      expect(a.store.inspect().settle?.eager).toBe(true);
      expect(b.store.inspect().settle?.tripMs).toBeGreaterThanOrEqual(600);
      const req = { url: "https://api.example.test/slow-link" };
      await Promise.all([a.store.ensure(req), b.store.ensure(req)]);
      expect(host.calls.map((call) => call.from)).toEqual(["slow"]);
    } finally {
      a.close();
      b?.close();
      watcher.destroy();
      watcherDoc.destroy();
    }
  }, 20_000);

  it("a peer's published trip is read like any record (invariant 14): only a number of ms counts", () => {
    const doc = new Y.Doc();
    const own = new Awareness(doc);
    const samples = new TripSamples();
    const tripMs = sharedTrips(own, samples);
    const peer = (id: number, trip: unknown) => own.states.set(id, { sharedFetch: { replicaId: `r${id}` }, [TRIP_FIELD]: trip });
    for (const [i, bad] of ["900", null, { ms: 900 }, [900], true].entries()) peer(100 + i, bad);
    expect(tripMs()).toBeUndefined(); // nothing measured: the store's default window
    peer(200, 45);
    expect(tripMs()).toBeUndefined(); // a peer whose window is no longer than the default leaves it so
    peer(201, 250);
    expect(tripMs()).toBe(250); // a slower one sizes it
    samples.add(300);
    expect(tripMs()).toBe(300); // our own, once measured, when it is the longest
    own.setLocalStateField(TRIP_FIELD, 300); // as connectPeers publishes it
    peer(202, 400);
    expect(tripMs()).toBe(400);
    own.destroy();
  });
});
