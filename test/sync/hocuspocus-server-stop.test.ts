/**
 * A plain Hocuspocus server redeployed: its SIGTERM handler runs `destroy()`, which closes the
 * connections one by one and tells each client still connected that the ones closed before it
 * left. Invariant 3 (a): a claim goes stale at once only when its claimant's presence really left.
 * Before, the later device took those relayed removals for the others' death and sent their
 * requests in flight again (one more per restart); its own connection closed a moment later.
 * The server runs in this process on 127.0.0.1 and comes back empty (its rooms lived in memory).
 */
import { Server } from "@hocuspocus/server";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { nextEvent, until } from "./wait.ts";

const LEASE = 60_000; // far longer than the test: only a presence removal could explain a takeover
const req = { url: "https://api.example.test/redeploy" };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serverOn(port: number): Promise<Server> {
  const server = new Server({ port, address: "127.0.0.1", quiet: true, stopOnSignals: false });
  await server.listen();
  return server;
}

function device(port: number, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const url = `ws://127.0.0.1:${port}`;
  const conn = connectHocuspocus(doc, { url, room, token: "t", WebSocketPolyfill: WebSocket, reconnectDelayMs: 100 });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), leaseMs: LEASE });
  cleanups.push(() => (store.destroy(), conn.destroy(), doc.destroy()));
  return { doc, conn, store };
}
type Device = ReturnType<typeof device>;

/** Resolves once `d` sees `other`'s store in its presence. */
const sees = (d: Device, other: Device) =>
  until(d.conn.awareness, "change", () => d.conn.awareness.getStates().get(other.doc.clientID)?.sharedFetch !== undefined);

/** `a` connected first, so the server closes it first and tells `b` it left. */
async function twoDevices() {
  const port = await freePort();
  const server = { current: await serverOn(port) };
  cleanups.push(() => server.current.destroy());
  const room = `redeploy-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const a = device(port, room, host, "a");
  await a.conn.whenSynced;
  const b = device(port, room, host, "b");
  await b.conn.whenSynced;
  await Promise.all([sees(a, b), sees(b, a)]);
  const asked = a.store.ensure(req);
  await host.whenCalls(1);
  const waiting = b.store.ensure(req);
  await until(b.doc, "update", () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);
  // Awaited by the tests that need them; the others' are aborted at cleanup.
  for (const pending of [asked, waiting]) pending.catch(() => {});
  return { port, server, host, a, b, asked, waiting };
}

describe("a Hocuspocus server stopped by destroy() (its SIGTERM handler) mid-request (invariant 3)", () => {
  it("restarted empty three times in a row: no device takes the claimant's claim over; one request, its result reaches both", async () => {
    const { port, server, host, a, b, asked, waiting } = await twoDevices();
    for (let round = 0; round < 3; round++) {
      const closed = [nextEvent(a.conn.websocket, "disconnect"), nextEvent(b.conn.websocket, "disconnect")];
      await server.current.destroy();
      await Promise.all(closed);
      server.current = await serverOn(port);
      // Both back and seeing each other: a takeover the removals caused has long been sent by now.
      await Promise.all([sees(a, b), sees(b, a)]);
      expect(host.calls.map((call) => call.from)).toEqual(["a"]);
      expect(b.store.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a.store.replicaId, stale: false } });
    }
    host.calls[0]!.respond(200, { by: "a" });
    await expect(asked).resolves.toMatchObject({ status: "success", data: { by: "a" } });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
    expect(host.calls).toHaveLength(1);
  }, 30_000);

  it("a claimant whose connection the server sees close while the server stays up is still gone: taken over long before its lease", async () => {
    const { host, a, waiting } = await twoDevices();
    a.conn.websocket.disconnect(); // a laptop lid closed: the server removes its presence and says so
    await host.whenCalls(2);
    expect(host.calls[1]!.from).toBe("b");
    host.calls[1]!.respond(200, { by: "b" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "b" } });
  }, 30_000);
});
