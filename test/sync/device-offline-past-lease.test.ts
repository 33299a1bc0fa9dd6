/**
 * Device A goes offline for longer than a lease while it holds a claim: its Wi-Fi drops (the link
 * goes silent, its socket stays open: nothing tells either side) or the server closes its socket
 * (a restart of a proxy, a load balancer's idle cut). B takes over (invariant 3: by the lease, or
 * at once when A's presence is removed), keeping the revision (invariant 12's key stays the same).
 * A's late answer, at that revision but from a request sent before B's, is recorded where A is,
 * and once A is back both devices show B's later result, never A's after it (invariant 6 and the
 * later request winning within one revision, freshness.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { linkGate } from "./link-gate.ts";
import { startTcpProxy } from "./tcp-proxy.ts";
import { until } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(() => server.close());

const LEASE = 400;
const req = { url: "https://api.example.test/offline", method: "POST", body: "{}" };

function device(url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null, leaseMs: LEASE });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

type Link = { url: string; cut(): void; back(): void; close(): unknown };
const links: Record<string, () => Promise<Link>> = {
  "its Wi-Fi drops (the link silent, the socket open)": async () => {
    const proxy = await startTcpProxy(server.url);
    return { url: proxy.url, cut: () => proxy.blackhole(), back: () => proxy.heal(), close: () => proxy.close() };
  },
  "the server closes its socket and refuses it until it is back": async () => {
    const gate = await linkGate(server.url);
    return { url: gate.url, cut: () => gate.down(), back: () => gate.up(), close: () => gate.close() };
  },
};

describe("a device offline past the lease while it holds a claim", () => {
  for (const [how, makeLink] of Object.entries(links)) {
    for (const order of ["B's answer first", "A's late answer first"] as const) {
      it(`${how}, ${order}: B takes over with the same Idempotency-Key; back online, both show B's later result, never A's after it`, async () => {
        const link = await makeLink();
        const room = `offline-${Math.random().toString(36).slice(2)}`;
        const host = new Host();
        const a = device(link.url, room, host, "a");
        const b = device(server.url, room, host, "b");
        const shownOnA: unknown[] = [];
        try {
          await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
          await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
          const askedA = a.store.ensure(req);
          await host.whenCalls(1);
          const askedB = b.store.ensure(req);
          await until(b.doc, "update", () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);

          link.cut();
          // Pending all along on B, never "done, nothing here" (invariant 8), until its own request.
          expect(b.store.snapshot(req).status).toBe("pending");
          const [, fromB] = await host.whenCalls(2);
          expect(fromB!.from).toBe("b");
          expect(fromB!.headers["idempotency-key"]).toBe(host.calls[0]!.headers["idempotency-key"]);

          const answerA = async () => {
            host.calls[0]!.respond(200, { by: "a" });
            await expect(askedA).resolves.toMatchObject({ status: "success" });
          };
          const answerB = async () => {
            fromB!.respond(200, { by: "b" });
            await expect(askedB).resolves.toMatchObject({ status: "success", data: { by: "b" } });
          };
          if (order === "B's answer first") {
            await answerB();
            await answerA();
          } else {
            await answerA();
            expect(a.store.snapshot(req)).toMatchObject({ status: "success", data: { by: "a" } }); // recorded where A is
            await answerB();
          }

          a.store.subscribe(req, () => shownOnA.push(a.store.snapshot(req).data));
          link.back();
          await vi.waitFor(() => expect(a.store.snapshot(req)).toMatchObject({ status: "success", data: { by: "b" } }), {
            timeout: 10_000,
            interval: 20,
          });
          // Both in sync again (A's own writes reached B), both on B's result.
          await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
          const probe = b.store.refetch({ url: "https://api.example.test/probe" });
          (await host.whenCalls(3))[2]!.respond(200, { probe: true });
          await probe;
          await vi.waitFor(() => expect(a.store.snapshot({ url: "https://api.example.test/probe" }).status).toBe("success"), {
            timeout: 10_000,
            interval: 20,
          });
          expect(b.store.snapshot(req)).toMatchObject({ status: "success", data: { by: "b" } });
          expect(a.store.snapshot(req)).toMatchObject({ status: "success", data: { by: "b" } });
          // Once on B's result, A never went back to its own.
          const firstB = shownOnA.findIndex((d) => (d as { by?: string } | undefined)?.by === "b");
          expect(shownOnA.slice(firstB).every((d) => (d as { by?: string }).by === "b")).toBe(true);
          expect(host.calls.map((call) => call.from)).toEqual(["a", "b", "b"]);
        } finally {
          a.stop();
          b.stop();
          await link.close();
        }
      }, 20_000);
    }
  }
});
