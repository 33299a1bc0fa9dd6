/**
 * A Hocuspocus server restarts empty (a deploy that lost its rooms: they live in memory) while the
 * devices keep running, as server-restart-empty.test.ts for connectPeers. Nothing a device recorded
 * is lost: their states merge back into the server at the reconnect, a device that joins only
 * afterwards gets every result from it, what one device recorded while the server was down reaches
 * the others, and no key that had a result is fetched again.
 */
import { Server } from "@hocuspocus/server";
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { nextEvent } from "./wait.ts";

const key = (name: string) => ({ url: `https://api.example.test/${name}` });

async function serverOn(port: number): Promise<Server> {
  const server = new Server({ port, address: "127.0.0.1", quiet: true, stopOnSignals: false });
  await server.listen();
  return server;
}

function device(port: number, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, {
    url: `ws://127.0.0.1:${port}`,
    room,
    token: "t",
    WebSocketPolyfill: WebSocket,
    reconnectDelayMs: 100,
  });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

async function record(d: ReturnType<typeof device>, host: Host, name: string): Promise<void> {
  const asked = d.store.ensure(key(name));
  const calls = await host.whenCalls(host.calls.length + 1);
  calls.at(-1)!.respond(200, { name });
  await expect(asked).resolves.toMatchObject({ status: "success", data: { name } });
}

describe("connectHocuspocus: the server restarts with none of its rooms", () => {
  it("the devices' records merge back into it: a device joining after sees them all; nothing is fetched again", async () => {
    const port = await freePort();
    let server = await serverOn(port);
    const room = `hp-empty-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(port, room, host, "a");
    const b = device(port, room, host, "b");
    let c: ReturnType<typeof device> | undefined;
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await record(a, host, "from-a");
      await record(b, host, "from-b");
      await vi.waitFor(() => {
        expect(a.store.snapshot(key("from-b")).status).toBe("success");
        expect(b.store.snapshot(key("from-a")).status).toBe("success");
      });

      const closed = [nextEvent(a.conn.websocket, "disconnect"), nextEvent(b.conn.websocket, "disconnect")];
      await server.destroy();
      await Promise.all(closed);
      // Recorded while the server is down: the other device cannot have it yet.
      await record(a, host, "while-down");
      expect(b.store.snapshot(key("while-down")).status).toBe("idle");

      server = await serverOn(port);
      await vi.waitFor(
        () => expect(b.store.snapshot(key("while-down"))).toMatchObject({ status: "success", data: { name: "while-down" } }),
        { timeout: 10_000 },
      );

      // A device that never met A or B: everything reaches it through the new server.
      c = device(port, room, host, "c");
      await c.conn.whenSynced;
      for (const name of ["from-a", "from-b", "while-down"]) {
        await expect(c.store.ensure(key(name))).resolves.toMatchObject({ status: "success", data: { name } });
        await expect(a.store.ensure(key(name))).resolves.toMatchObject({ status: "success", data: { name } });
        await expect(b.store.ensure(key(name))).resolves.toMatchObject({ status: "success", data: { name } });
      }
      expect(host.calls.map((call) => `${call.from} ${new URL(call.url).pathname}`)).toEqual(["a /from-a", "b /from-b", "a /while-down"]);
    } finally {
      c?.stop();
      a.stop();
      b.stop();
      await server.destroy();
    }
  }, 20_000);
});
