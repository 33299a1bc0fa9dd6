/**
 * Two tabs of one browser (one lock manager, one doc through connectTabs), each with its own
 * socket to the sync server. Tab A's socket dropped and its reconnect hangs; tab B's is in sync.
 * A claim of A waits for that reconnect (up to 2 s: reconnect-joins-in-flight.test.tsx). It must
 * not hold the key's Web Lock meanwhile: B, in sync and seeing the other devices, claims and sends
 * the request at once, and A joins it. A used to queue for the key lock as a starting store does,
 * and B waited behind it for A's whole wait, then A sent the request. So did A's first ask ever,
 * made after its initial sync and the drop: it waits for the reconnect alone, as a later ask does.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectPeers, connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { linkGate } from "./link-gate.ts";
import { nextEvent } from "./wait.ts";
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

const req = { url: "https://api.example.test/reconnect-lock" };
const warm = { url: "https://api.example.test/warm" };

/** A tab: its own lock realm in the browser's one manager, the key locks it holds listed in `held`. */
function tab(locks: FakeLocks, name: string, url: string, room: string, host: Host, held: string[]) {
  const realm = locks.forTab(name);
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: room, indexeddb: false });
  const peers = connectPeers(doc, { url, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({
    doc,
    awareness: tabs.awareness,
    fetch: host.fetchAs(name),
    locks: {
      request: (lock, options, callback) =>
        realm.request(lock, options, async (granted) => {
          if (!granted || !lock.startsWith("shared-fetch:key:")) return callback(granted);
          held.push(name);
          try {
            return await callback(granted);
          } finally {
            held.splice(held.indexOf(name), 1);
          }
        }),
    },
  });
  teardown.push(() => (store.destroy(), peers.destroy(), tabs.destroy(), doc.destroy()));
  return { store, tabs, peers };
}

it.each([
  ["a claim after asks of its own", true],
  ["the store's first ask, made after its initial sync", false],
])(
  "a tab waiting for its socket's reconnect (%s) holds no key lock: the other tab, in sync, sends the request at once, and the first joins it",
  async (_, aAskedBefore) => {
    const room = `reconnect-lock-${Math.random().toString(36).slice(2)}`;
    const link = await linkGate(server.url);
    teardown.push(link.close);
    const locks = new FakeLocks();
    const host = new Host();
    const held: string[] = [];
    const a = tab(locks, "a", link.url, room, host, held);
    const b = tab(locks, "b", server.url, room, host, held);
    await Promise.all([a.peers.whenSynced, b.peers.whenSynced, a.tabs.whenSynced, b.tabs.whenSynced]);
    // B started (its first claim waited for its start); A too, or A never asked yet.
    host.auto = (call) => (call.url === warm.url ? { status: 200, body: { warm: true } } : undefined);
    await Promise.all([aAskedBefore && a.store.ensure(warm), b.store.ensure(warm)]);
    const sent = () => host.calls.filter((c) => c.url === req.url);

    // A's socket drops; its next connection hangs.
    const closed = nextEvent(a.peers.provider, "connection-close");
    link.down();
    await closed;
    link.hang();
    const fromA = a.store.ensure(req);
    await vi.waitFor(() => expect(a.store.inspect().lifecycle).toBe("starting"));
    // Whatever A would queue for is granted by now (the lock manager answers in a microtask).
    await new Promise((r) => setImmediate(r));
    expect(held).toEqual([]);
    const fromB = b.store.ensure(req);
    await vi.waitFor(() => expect(sent()).not.toHaveLength(0), { timeout: 5_000, interval: 5 });
    const call = sent()[0];
    expect([call!.from, a.store.inspect().lifecycle]).toEqual(["b", "starting"]);
    call!.respond(200, { n: 1 });
    for (const ask of [fromA, fromB]) await expect(ask).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(sent()).toHaveLength(1);
  },
);
