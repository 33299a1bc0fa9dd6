/**
 * Invariant 3 across devices: a third device's own disconnect is not taken, by the others, for the
 * death of a live claimant. connectPeers drops remote presence under connectionLostOrigin when
 * *its* socket closes; had that removal been an awareness "update", y-websocket's provider would
 * send it through the socket still open (connection-close comes before provider.ws is cleared), and
 * the server would relay "A left" to everyone, who would take over A's live claim.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { until } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});

const LEASE = 60_000; // only a presence event can explain a takeover within the test
const req = { url: "https://api.example.test/third-peer" };

function device(room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), leaseMs: LEASE, settleMs: 20 });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

function when(store: SharedFetchStoreWithExtras, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const off = store.subscribe(req, () => {
      if (check()) {
        off();
        resolve();
      }
    });
  });
}

const settleABit = () => new Promise((r) => setTimeout(r, 300));

async function threeDevices() {
  const room = `third-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const a = device(room, host, "a");
  const b = device(room, host, "b");
  const c = device(room, host, "c");
  await Promise.all([a.conn.whenSynced, b.conn.whenSynced, c.conn.whenSynced]);
  const sees = (x: typeof a, y: typeof a) => () => x.conn.awareness.getStates().has(y.doc.clientID);
  await until(c.conn.awareness, "change", sees(c, a));
  await until(c.conn.awareness, "change", sees(c, b));
  await until(b.conn.awareness, "change", sees(b, a));
  void a.store.ensure(req).catch(() => {});
  await host.whenCalls(1);
  await when(c.store, () => c.store.snapshot(req).claim?.replicaId === a.store.replicaId);
  const waiting = c.store.ensure(req);
  waiting.catch(() => {});
  return { host, a, b, c, waiting };
}

describe("a third device's disconnect is not the claimant's death", () => {
  it("B destroys its connection: C keeps A's claim (A is alive and still fetching)", async () => {
    const { host, a, b, c } = await threeDevices();
    const removedOnC: number[] = [];
    c.conn.awareness.on("change", ({ removed }: { removed: number[] }) => removedOnC.push(...removed));
    b.conn.destroy(); // B goes away in order (its tab closes)
    await settleABit();
    // Only B left; A never did.
    // No duplicate request: A is alive, its claim keeps its 60 s lease.
    expect(host.calls.map((call) => call.from)).toEqual(["a"]);
    expect(c.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false });
    expect(removedOnC).not.toContain(a.doc.clientID);
    host.calls[0]!.respond(200, { ok: 1 });
    a.stop();
    b.store.destroy();
    b.doc.destroy();
    c.stop();
  });

  it("B goes offline (provider.disconnect()): C keeps A's claim; back online, B sees A again at once (not at A's 15 s renewal)", async () => {
    const { host, a, b, c } = await threeDevices();
    const removedOnC: number[] = [];
    c.conn.awareness.on("change", ({ removed }: { removed: number[] }) => removedOnC.push(...removed));
    b.conn.provider.disconnect(); // B's user switches to offline mode, or its watchdog closes a quiet socket
    await settleABit();
    // No duplicate request: A is alive, its claim keeps its 60 s lease.
    expect(host.calls.map((call) => call.from)).toEqual(["a"]);
    expect(c.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false });
    expect(removedOnC).not.toContain(a.doc.clientID);
    b.conn.provider.connect();
    await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
    host.calls[0]!.respond(200, { ok: 1 });
    a.stop();
    b.stop();
    c.stop();
  });
});
