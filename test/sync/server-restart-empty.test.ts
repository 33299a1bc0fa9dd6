/**
 * The sync server (y-websocket's, or Hocuspocus) restarts empty (a deploy that lost its rooms: they live in memory) while the
 * devices keep running. Nothing a device recorded is lost: their states merge back into the
 * server at the reconnect, a device that joins only afterwards gets every result from it, what one
 * device recorded while the server was down reaches the others, and no key that had a result is
 * fetched again.
 */
import { describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { kits, type Kit } from "./connector-kits.ts";

const key = (name: string) => ({ url: `https://api.example.test/${name}` });

function device(kit: Kit, port: number, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = kit.connect(doc, `ws://127.0.0.1:${port}`, room);
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

async function record(d: ReturnType<typeof device>, host: Host, name: string): Promise<void> {
  const asked = d.store.ensure(key(name));
  const calls = await host.whenCalls(host.calls.length + 1);
  calls.at(-1)!.respond(200, { name });
  await expect(asked).resolves.toMatchObject({ status: "success", data: { name } });
}

describe.each(kits)("$name: the sync server restarts with none of its rooms", (kit) => {
  it("the devices' records merge back into it: a device joining after sees them all; nothing is fetched again", async () => {
    const port = await freePort();
    let server = await kit.start(port);
    const room = `empty-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(kit, port, room, host, "a");
    const b = device(kit, port, room, host, "b");
    let c: ReturnType<typeof device> | undefined;
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      await record(a, host, "from-a");
      await record(b, host, "from-b");
      await vi.waitFor(() => {
        expect(a.store.snapshot(key("from-b")).status).toBe("success");
        expect(b.store.snapshot(key("from-a")).status).toBe("success");
      });

      const closed = [kit.closed(a.conn), kit.closed(b.conn)];
      await server.close();
      await Promise.all(closed);
      // Recorded while the server is down: the other device cannot have it yet.
      await record(a, host, "while-down");
      expect(b.store.snapshot(key("while-down")).status).toBe("idle");

      server = await kit.start(port);
      await Promise.all([kit.synced(a.conn), kit.synced(b.conn)]);
      await vi.waitFor(
        () => expect(b.store.snapshot(key("while-down"))).toMatchObject({ status: "success", data: { name: "while-down" } }),
        {
          timeout: 5000,
        },
      );

      // A device that never met A or B: everything reaches it through the new server.
      c = device(kit, port, room, host, "c");
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
      await server.close();
    }
  }, 20_000);
});
