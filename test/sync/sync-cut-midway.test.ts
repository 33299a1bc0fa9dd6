/**
 * A link that drops a device's socket in the middle of its sync with the server (the server is up:
 * it accepted the socket), through connectPeers and connectHocuspocus alike: the frames of one half
 * of the sync never arrive. No request is sent
 * twice because of it (invariant 8: the joining device shows the claimant's work as pending, never
 * starts its own), and nothing either side recorded is lost once the next attempt syncs.
 */
import { Server } from "@hocuspocus/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectorsOf } from "../../src/core/connectors.ts";
import { connectHocuspocus, UNAVAILABLE_REASON } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { kits } from "./connector-kits.ts";
import { frameRelay } from "./frame-relay.ts";
import { until } from "./wait.ts";

const req = { url: "https://api.example.test/cut" };
const LEASE = 60_000; // far longer than the test: only the sync can explain what B learns

describe.each(kits)("$name: a device's socket dropped mid-sync", (kit) => {
  let server: Awaited<ReturnType<typeof kit.start>>;
  beforeAll(async () => {
    server = await kit.start();
  });
  afterAll(() => server.close());
  const isStep2 = kit.isStep2;

  function device(doc: Y.Doc, url: string, room: string, host: Host, name: string) {
    const conn = kit.connect(doc, url, room);
    const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null, leaseMs: LEASE });
    return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
  }

  // Failed with one cut before the fix: the close ended the first claim's wait for the sync as if
  // the server were down, and B sent the request A had in flight.
  it.each([1, 2, 3])(
    "the server's step 2 lost %i time(s): B, asking at once, waits on A's claim and gets A's result; one request",
    async (cuts) => {
      const relay = await frameRelay(server.url);
      const room = `cut-${Math.random().toString(36).slice(2)}`;
      const host = new Host();
      const a = device(new Y.Doc(), server.url, room, host, "a");
      await a.conn.whenSynced;
      const asked = a.store.ensure(req);
      await host.whenCalls(1);
      // The server's answer to B's step 1 (the doc, A's claim in it) is where the link drops.
      relay.toClient = (frame) => {
        if (relay.attempts > cuts || !isStep2(frame)) return true;
        relay.cut();
        return false;
      };
      const b = device(new Y.Doc(), relay.url, room, host, "b");
      const waiting = b.store.ensure(req);
      // Awaited below; a failing run's stop aborts them.
      for (const pending of [asked, waiting]) pending.catch(() => {});
      try {
        await b.conn.whenSynced;
        expect(relay.attempts).toBe(cuts + 1);
        expect(b.store.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a.store.replicaId, mine: false } });
        host.calls[0]!.respond(200, { by: "a" });
        await asked;
        await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
        expect(host.calls.map((call) => call.from)).toEqual(["a"]);
      } finally {
        a.stop();
        b.stop();
        await relay.close();
      }
    },
    15_000,
  );

  it("B's own step 2 (its records) lost twice: once B syncs, A has B's result and sends nothing", async () => {
    const relay = await frameRelay(server.url);
    const room = `cut-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    // B recorded a result before it ever reached the server (offline from the start).
    const bDoc = new Y.Doc();
    const offline = createSharedFetchStore({ doc: bDoc, fetch: host.fetchAs("b"), locks: null });
    const recorded = offline.ensure(req);
    (await host.whenCalls(1))[0]!.respond(200, { by: "b" });
    await expect(recorded).resolves.toMatchObject({ status: "success" });
    offline.destroy();

    const a = device(new Y.Doc(), server.url, room, host, "a");
    await a.conn.whenSynced;
    relay.toServer = (frame) => {
      if (relay.attempts > 2 || !isStep2(frame)) return true;
      relay.cut();
      return false;
    };
    const b = device(bDoc, relay.url, room, host, "b");
    try {
      // B's step 2 is what carries its records to the server: only the third attempt delivers it.
      await until(a.doc, "update", () => a.store.snapshot(req).status === "success");
      expect(relay.attempts).toBe(3);
      expect(b.store.snapshot(req)).toMatchObject({ status: "success", data: { by: "b" } });
      await expect(a.store.ensure(req)).resolves.toMatchObject({ status: "success", data: { by: "b" } });
      expect(host.calls.map((call) => call.from)).toEqual(["b"]);
    } finally {
      a.stop();
      b.stop();
      await relay.close();
    }
  }, 15_000);
});

describe("connectHocuspocus: a close the server explains is not a cut", () => {
  it("a server that answers `unavailable` (a room it cannot open for now) is a failed attempt, not a cut: the first claims stop waiting", async () => {
    const port = await freePort();
    const unavailable = new Server({
      port,
      address: "127.0.0.1",
      quiet: true,
      stopOnSignals: false,
      async onAuthenticate() {
        throw Object.assign(new Error("room could not be loaded"), { reason: `${UNAVAILABLE_REASON}: storage` });
      },
    });
    await unavailable.listen();
    const doc = new Y.Doc();
    const conn = connectHocuspocus(doc, {
      url: `ws://127.0.0.1:${port}`,
      room: "hp-unavailable",
      token: "t",
      WebSocketPolyfill: WebSocket,
    });
    try {
      // The socket opened and closed unsynced, as a cut one does; the server said why.
      await connectorsOf(doc)[0]!.whenSynced;
      expect(conn.error).toBeUndefined();
    } finally {
      conn.destroy();
      doc.destroy();
      await unavailable.destroy();
    }
  });
});
