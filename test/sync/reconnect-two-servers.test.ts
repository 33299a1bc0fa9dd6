/**
 * A doc connected to two y-websocket servers (two connectPeers), both down while the device was
 * offline. Another device, on the second server only, sends the request meanwhile. Back online,
 * a claim waits for every connection's sync, made at once, as a first claim waits for every
 * connector's initial sync: it joins that request. It used to connect and wait for the first
 * connector alone, claim once that one synced and send the request again, the second connection
 * still waiting out its back-off (and a later claim then waited for that one in turn).
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { linkGate } from "./link-gate.ts";
import { nextEvent } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let servers: SyncServer[];
beforeAll(async () => {
  servers = await Promise.all([startSyncServer(), startSyncServer()]);
});
afterAll(() => servers.forEach((s) => s.close()));
const teardown: (() => void)[] = [];
afterEach(() => {
  for (const stop of teardown.splice(0).reverse()) stop();
});

const req = { url: "https://api.example.test/two-servers" };

it("back online, a claim waits for both of the doc's connections: it joins the request a device on the second server sent meanwhile", async () => {
  const room = `two-servers-${Math.random().toString(36).slice(2)}`;
  const host = new Host();
  const links = await Promise.all(servers.map((s) => linkGate(s.url)));
  for (const link of links) teardown.push(link.close);

  const docA = new Y.Doc();
  const peersA = connectPeers(docA, { url: servers[1]!.url, room, WebSocketPolyfill: WebSocket });
  const a = createSharedFetchStore({ doc: docA, awareness: peersA.awareness, locks: null, fetch: host.fetchAs("a") });
  const docB = new Y.Doc();
  const peersB = links.map((link) => connectPeers(docB, { url: link.url, room, WebSocketPolyfill: WebSocket }));
  const b = createSharedFetchStore({ doc: docB, awareness: peersB[0]!.awareness, locks: null, fetch: host.fetchAs("b") });
  teardown.push(() => (a.destroy(), b.destroy(), peersA.destroy(), peersB.forEach((p) => p.destroy()), docA.destroy(), docB.destroy()));
  await Promise.all([peersA.whenSynced, ...peersB.map((p) => p.whenSynced)]);

  // B offline: both sockets close, and a reconnect of each is refused (cut off for a while).
  const closed = peersB.map((p) => nextEvent(p.provider, "connection-close").then(() => nextEvent(p.provider, "connection-close")));
  links.forEach((link) => link.down());
  await Promise.all(closed);
  const fromA = a.ensure(req);
  await host.whenCalls(1);

  // Back online: B asks before either back-off connects again.
  links.forEach((link) => link.up());
  const fromB = b.ensure(req);
  await Promise.all(peersB.map((p) => nextEvent(p.provider, "sync", (synced: boolean) => synced)));
  await vi.waitFor(() => expect(b.inspect().lifecycle).toBe("ready"));
  host.calls[0]!.respond(200, { n: 1 });
  for (const ask of [fromA, fromB]) await expect(ask).resolves.toMatchObject({ status: "success", data: { n: 1 } });
  expect(host.calls.map((c) => c.from)).toEqual(["a"]);
}, 20_000);
