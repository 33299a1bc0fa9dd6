/**
 * The sync server stops mid-request and comes back on the same port, empty (rooms live in memory):
 * the devices converge on one outcome, the claimant's result reaches the other device, and nobody
 * sends the request again.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { nextEvent, until } from "./wait.ts";

const script = fileURLToPath(new URL("../../bin/sync-server.mjs", import.meta.url));

/** bin/sync-server.mjs on a port chosen up front, so that a restart comes back where clients reconnect. */
function serverOn(port: number): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("listening on")) resolve({ stop: () => (child.kill("SIGTERM"), exited) });
    });
    child.once("error", reject);
  });
}

const LEASE = 60_000; // far longer than the test: only an event could explain a takeover
const req = { url: "https://api.example.test/restart" };

function device(port: number, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url: `ws://127.0.0.1:${port}`, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), leaseMs: LEASE });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

describe("the sync server restarts mid-request", () => {
  it("the claimant's result, recorded while the server was down, reaches the other device once it is back; one request", async () => {
    const port = await freePort();
    let server = await serverOn(port);
    const room = `restart-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(port, room, host, "a");
    const b = device(port, room, host, "b");
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
      const asked = a.store.ensure(req);
      await host.whenCalls(1);
      const waiting = b.store.ensure(req);
      await until(b.doc, "update", () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);

      const closedA = nextEvent(a.conn.provider, "connection-close");
      const closedB = nextEvent(b.conn.provider, "connection-close");
      await server.stop();
      await Promise.all([closedA, closedB]);
      host.calls[0]!.respond(200, { by: "a" });
      await expect(asked).resolves.toMatchObject({ status: "success", data: { by: "a" } });
      expect(b.store.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a.store.replicaId, stale: false } });

      server = await serverOn(port);
      await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
      expect(host.calls.map((call) => call.from)).toEqual(["a"]);
      // Both see each other again, and a refetch on b is one request that reaches a.
      await until(a.conn.awareness, "change", () => a.conn.awareness.getStates().has(b.doc.clientID));
      await until(b.conn.awareness, "change", () => b.conn.awareness.getStates().has(a.doc.clientID));
      const again = b.store.refetch(req);
      await host.whenCalls(2);
      host.calls[1]!.respond(200, { by: "b" });
      await expect(again).resolves.toMatchObject({ status: "success", data: { by: "b" } });
      await until(a.doc, "update", () => (a.store.snapshot(req).data as { by?: string } | undefined)?.by === "b");
      expect(host.calls.map((call) => call.from)).toEqual(["a", "b"]);
    } finally {
      a.stop();
      b.stop();
      await server.stop();
    }
  }, 30_000);
});
