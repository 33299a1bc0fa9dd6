/**
 * A store made before its connection to the sync server (against Usage's order), in Node, where
 * there are no Web Locks: its `ready` wait was fixed at creation, with no connector to wait for.
 * Its first claim still waits for connectPeers' initial sync, as a claim waits for a reconnect's
 * (ConnectorInfo.resync, up to 2 s): it finds the result another device recorded and sends nothing.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(() => server.close());
const teardown: (() => void)[] = [];
afterEach(() => {
  for (const stop of teardown.splice(0).reverse()) stop();
});

const req = { url: "https://api.example.test/connector-after-store" };

it("a store made before connectPeers waits, at its first claim, for that connection's initial sync: the result another device recorded is used, no request sent", async () => {
  const room = `after-store-${Math.random().toString(36).slice(2)}`;
  const docA = new Y.Doc();
  const peersA = connectPeers(docA, { url: server.url, room, WebSocketPolyfill: WebSocket });
  const a = createSharedFetchStore({ doc: docA, fetch: async () => Response.json({ by: "a" }) });
  teardown.push(() => (a.destroy(), peersA.destroy(), docA.destroy()));
  await peersA.whenSynced;
  await a.ensure(req);

  const docB = new Y.Doc();
  const sent: string[] = [];
  const b = createSharedFetchStore({ doc: docB, fetch: async (input) => (sent.push(String(input)), Response.json({ by: "b" })) });
  const peersB = connectPeers(docB, { url: server.url, room, WebSocketPolyfill: WebSocket });
  teardown.push(() => (b.destroy(), peersB.destroy(), docB.destroy()));
  await expect(b.ensure(req)).resolves.toMatchObject({ status: "success", data: { by: "a" } });
  expect(sent).toEqual([]);
});
