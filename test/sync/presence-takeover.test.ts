import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeAwarenessStates } from "y-protocols/awareness";
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

const LEASE = 60_000; // far longer than the test: only a presence event can explain a takeover
const req = { url: "https://api.example.test/presence" };

function device(room: string, host: Host, name?: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });
  const fetch = name === undefined ? host.fetch : host.fetchAs(name);
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch, leaseMs: LEASE, settleMs: 20 });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

/** Resolves when `check` holds, re-checking on every store event (no sleeps). */
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

describe("presence as a failure event across devices (y-websocket on 127.0.0.1)", () => {
  it("a peer whose presence is removed has its claims go stale at once, and the other takes over", async () => {
    const room = `presence-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(room, host);
    const b = device(room, host);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    void a.store.ensure(req).catch(() => {});
    await when(b.store, () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);
    await host.whenCalls(1);
    const waiting = b.store.ensure(req);
    // The device goes away without an orderly release (a closed laptop): its socket closes and the
    // server removes its presence; its claim stays in the doc.
    a.conn.provider.ws?.close();
    a.conn.provider.shouldConnect = false;
    await host.whenCalls(2); // long before the 60 s lease
    host.calls[1]!.respond(200, { by: "b" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "b" } });
    a.stop();
    b.stop();
  });

  it("our own lost connection is not mistaken for the peers' death", async () => {
    const room = `presence-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(room, host);
    const b = device(room, host);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    void a.store.ensure(req).catch(() => {});
    await host.whenCalls(1);
    void b.store.ensure(req).catch(() => {});
    const removed = new Promise<void>((resolve) =>
      b.conn.awareness.on("change", ({ removed }: { removed: number[] }) => removed.length && resolve()),
    );
    b.conn.provider.disconnect(); // b is the one offline: a's claim must keep its lease
    await removed; // b's awareness dropped a's state, with the connection-lost origin
    await new Promise<void>((resolve) => setImmediate(resolve)); // a (wrong) takeover is written in a microtask
    expect(b.store.claims().map(([, claim]) => claim.replicaId)).toEqual([a.store.replicaId]);
    expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false });
    expect(host.calls).toHaveLength(1);
    a.stop();
    b.stop();
  });

  it("y-protocols' own 30 s silence check (origin \"timeout\") is not the peer's death: our connection may be the one that hangs", async () => {
    const room = `presence-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(room, host);
    const b = device(room, host);
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
    void a.store.ensure(req).catch(() => {});
    await host.whenCalls(1);
    await when(b.store, () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);
    void b.store.ensure(req).catch(() => {});
    // What the awareness's outdated check does after 30 s without a word from a peer.
    removeAwarenessStates(b.conn.awareness, [a.doc.clientID], "timeout");
    await new Promise<void>((resolve) => setImmediate(resolve)); // a (wrong) takeover is written in a microtask
    expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId, stale: false });
    expect(host.calls).toHaveLength(1);
    a.stop();
    b.stop();
  });
});

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

describe("a third device's disconnect is not the claimant's death (its presence drop is its own, never sent)", () => {
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
