/**
 * A device's socket closed in the middle of its initial sync by a server (or the proxy in front of
 * it) that is going away or restarting: 1001 going away, 1011 server error, 1012 service restart,
 * through connectPeers and connectHocuspocus alike. These are passing failures: the provider
 * reconnects and the next attempt likely syncs, as after a link that dropped with no close frame
 * (sync-cut-midway.test.ts). So the first claims wait on for it (within the stores' bound), and
 * no request is sent twice because of it: the joining device waits on the claimant's work and
 * gets its result. Before, such a close ended the wait at once, as a refusal does, and the joining
 * device sent the request another device had in flight. A close that means "you will not get in"
 * still ends it at once (socket-closed-on-purpose.test.ts).
 * Real servers on 127.0.0.1; the close comes from a relay in front of them, as it would from a
 * restarting instance's proxy; waits on events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { kits } from "./connector-kits.ts";
import { frameRelay } from "./frame-relay.ts";

const req = { url: "https://api.example.test/restart" };
const LEASE = 60_000; // far longer than the test: only the sync can explain what B learns

describe.each(kits)("$name: a device's socket closed mid-sync by a server restarting", (kit) => {
  let server: Awaited<ReturnType<typeof kit.start>>;
  beforeAll(async () => {
    server = await kit.start();
  });
  afterAll(() => server.close());

  function device(url: string, room: string, host: Host, name: string) {
    const doc = new Y.Doc();
    const conn = kit.connect(doc, url, room);
    const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null, leaseMs: LEASE });
    return { conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
  }

  it.each([1001, 1011, 1012])(
    "closed with %i: B's first claim waits for the next attempt's sync, then on A's claim; one request",
    async (code) => {
      const relay = await frameRelay(server.url);
      const room = `restart-${code}-${Math.random().toString(36).slice(2)}`;
      const host = new Host();
      const a = device(server.url, room, host, "a");
      await a.conn.whenSynced;
      const asked = a.store.ensure(req);
      await host.whenCalls(1);
      // The server's answer to B's step 1 (the doc, A's claim in it) is where the socket is closed.
      relay.toClient = (frame) => {
        if (relay.attempts > 1 || !kit.isStep2(frame)) return true;
        relay.cut(code);
        return false;
      };
      const b = device(relay.url, room, host, "b");
      const waiting = b.store.ensure(req);
      // Awaited below; a failing run's stop aborts them.
      for (const pending of [asked, waiting]) pending.catch(() => {});
      try {
        await b.conn.whenSynced;
        expect(relay.attempts).toBe(2);
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
});
