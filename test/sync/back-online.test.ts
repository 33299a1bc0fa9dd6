/**
 * The browser says it is back online (a laptop woken from sleep, Wi-Fi back) while the socket of
 * connectPeers or connectHocuspocus looks in sync. Such a socket may be half-open: the server
 * dropped it long ago and nothing told the device (each provider's silence check closes it only
 * after 30 s). A key asked now must not be sent while another device has it in flight (invariant 8:
 * its claim shows as pending); a socket that still works is kept, so the other devices do not see
 * this one leave and take its claims over.
 */
import { afterEach, afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { kits, type Kit } from "./connector-kits.ts";
import { linkGate, type LinkGate } from "./link-gate.ts";
import { until } from "./wait.ts";

// Node has no window: the page's network events come from this target, as a browser's global scope.
const network = new EventTarget();
const scope = globalThis as Partial<EventTarget>;
beforeEach(() => {
  scope.addEventListener = network.addEventListener.bind(network);
  scope.removeEventListener = network.removeEventListener.bind(network);
});
afterEach(() => {
  vi.useRealTimers();
  delete scope.addEventListener;
  delete scope.removeEventListener;
});

const req = { url: "https://api.example.test/woken" };
const LEASE = 60_000; // far longer than the test: a takeover could only come from A's presence leaving

function device(kit: Kit, url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  let sockets = 0;
  const Counting = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      sockets++;
    }
  };
  const conn = kit.connect(doc, url, room, Counting);
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null, leaseMs: LEASE });
  return { doc, conn, store, sockets: () => sockets, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe.each(kits)("$name: back online while the socket looks in sync", (kit) => {
  let server: Awaited<ReturnType<typeof kit.start>>;
  beforeAll(async () => {
    server = await kit.start();
  });
  afterAll(() => server.close());
  let gate: LinkGate;
  afterEach(() => gate?.close());

  it("a half-open socket, then `online`: a key B has in flight is pending on A, not sent again; A gets B's result over a new socket", async () => {
    gate = await linkGate(server.url);
    const room = `woken-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(kit, gate.url, room, host, "a");
    const b = device(kit, server.url, room, host, "b");
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
      // The server loses A's socket (it sees A leave); A's socket stays open and silent.
      gate.halfOpen();
      await until(b.conn.awareness, "change", () => !b.conn.awareness.getStates().has(a.doc.clientID));
      const askedB = b.store.ensure(req);
      await host.whenCalls(1);

      network.dispatchEvent(new Event("online"));
      const askedA = a.store.ensure(req);
      for (const pending of [askedA, askedB]) pending.catch(() => {}); // awaited below; a failing run aborts them
      await vi.waitFor(() => expect(a.store.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: b.store.replicaId } }), {
        timeout: 5000,
        interval: 10,
      });
      expect(a.sockets()).toBe(2);
      host.calls[0]!.respond(200, { by: "b" });
      await expect(askedB).resolves.toMatchObject({ status: "success", data: { by: "b" } });
      await expect(askedA).resolves.toMatchObject({ status: "success", data: { by: "b" } });
      expect(host.calls.map((call) => call.from)).toEqual(["b"]);
    } finally {
      a.stop();
      b.stop();
    }
  }, 15_000);

  // The app closes the connection while the check is unanswered: y-websocket's socket closes at
  // once, a half-open one of Hocuspocus' only after its close handshake's 30 s, so both are read
  // past the check's bound (1 s) and the reconnect delays, on fake timers.
  it.each(["disconnect()", "destroy()"])(
    "a half-open socket, `online`, then the app's %s before the check is answered: no socket is made again",
    async (call) => {
      gate = await linkGate(server.url);
      const room = `woken-${Math.random().toString(36).slice(2)}`;
      const a = device(kit, gate.url, room, new Host(), "a");
      try {
        await a.conn.whenSynced;
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
        gate.halfOpen();
        network.dispatchEvent(new Event("online"));
        if (call === "destroy()") a.conn.destroy();
        else kit.disconnect(a.conn);
        await vi.advanceTimersByTimeAsync(5000);
        expect(kit.shouldConnect(a.conn)).toBe(false);
        expect(a.sockets()).toBe(1);
      } finally {
        a.stop();
      }
    },
  );

  it("a socket that still works, then `online`: kept; B does not take over the request A has in flight", async () => {
    gate = await linkGate(server.url);
    const room = `woken-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(kit, gate.url, room, host, "a");
    const b = device(kit, server.url, room, host, "b");
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
      const askedA = a.store.ensure(req);
      await host.whenCalls(1);
      const askedB = b.store.ensure(req);
      await until(b.doc, "update", () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);

      network.dispatchEvent(new Event("online"));
      // Asked behind the event on A: decided once the check over the socket is answered.
      const other = { url: "https://api.example.test/after-online" };
      const askedOther = a.store.ensure(other);
      (await host.whenCalls(2))[1]!.respond(200, { other: true });
      await expect(askedOther).resolves.toMatchObject({ status: "success" });
      expect(a.sockets()).toBe(1);
      expect(b.store.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a.store.replicaId } });
      host.calls[0]!.respond(200, { by: "a" });
      await expect(askedA).resolves.toMatchObject({ data: { by: "a" } });
      await expect(askedB).resolves.toMatchObject({ data: { by: "a" } });
      expect(host.calls.map((call) => `${call.from} ${new URL(call.url).pathname}`)).toEqual(["a /woken", "a /after-online"]);
    } finally {
      a.stop();
      b.stop();
    }
  }, 15_000);
});
