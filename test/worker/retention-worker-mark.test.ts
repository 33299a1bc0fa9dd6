/**
 * Retention in the SharedWorker: a key its doc loads is dated by the newest time its records carry
 * only where every record was written on this device's clock (tabs alone sync the doc, and this
 * browser never synced a doc of the name with other devices); otherwise at the load (DESIGN.md
 * invariant 2: never compare another machine's timestamp with `Date.now()`). The mark that says
 * "other devices" lived only in localStorage, which a worker has none of: the worker dated every
 * key at its load, so a worker-mode site closed each evening swept only what one worker's life saw
 * age. The mark is kept in the database's `custom` store too, which the worker reads. Real ports,
 * docs, stores and workers (browser-sim), fake-indexeddb, a real y-websocket server on 127.0.0.1.
 */
import "fake-indexeddb/auto";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/internals.ts";
import type { BrowserReplicaOptions } from "../../src/worker/replica-options.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { deviceBehind, HOUR, peersOn, unique } from "../sync/device-behind.ts";
import { startSyncServer, type SyncServer } from "../sync/ws-server.ts";
import { browser } from "./browser-sim.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  await server.close();
});
// As in a SharedWorker (and its tabs here): no localStorage to keep any mark in.
beforeEach(() => void vi.stubGlobal("localStorage", undefined));
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** One visit of a worker-mode site on database `name`: a tab served by the browser's worker. */
function visit(host: Host, name: string, options: Pick<BrowserReplicaOptions, "connectPeers"> = {}) {
  const b = browser(host, { retireAfterMs: 60_000, ...options });
  const tab = b.tab({ name });
  const workerStore = () => [...b.workers.values()][0]!.stores()[0]!;
  const close = () => {
    tab.destroy();
    for (const worker of b.workers.values()) worker.destroy();
  };
  return { tab, workerStore, close };
}

/** Resolves once the database holds `text` (the worker's write of what its doc heard). */
async function persisted(name: string, text: string): Promise<void> {
  await vi.waitFor(async () => expect(await indexedDbText(name)).toContain(text), { timeout: 5000, interval: 20 });
}

it("a worker-mode doc synced by tabs alone, reloaded past retentionMs, sweeps what nobody asked for since (dated by its records)", async () => {
  const name = unique("worker-tabs");
  const host = new Host();
  host.auto = () => ({ status: 200, body: "old-answer" });
  const old = { url: "https://api.example.test/items?asked=yesterday" };

  const first = visit(host, name);
  await expect(first.tab.ensure(old)).resolves.toMatchObject({ status: "success", data: "old-answer" });
  expect(first.tab.mode).toBe("shared-worker");
  await persisted(name, "old-answer");
  first.close();

  // The browser is opened again 25 h later: a new worker loads the key from the database.
  const real = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => real() + 25 * HOUR);
  const next = visit(host, name);
  try {
    await next.tab.ensure({ url: "https://api.example.test/items?asked=now" });
    const { results } = internalsOf(next.workerStore()).records;
    // The worker's sweep (queued by the ask) dated the loaded key by its result, 25 h old: gone.
    await vi.waitFor(() => expect(results.keys()).toHaveLength(1), { timeout: 2000, interval: 10 });
    expect(next.workerStore().snapshot(old)).toEqual({ status: "idle" });
  } finally {
    next.close();
  }
}, 20_000);

it("a worker-mode doc that once synced with a device whose clock runs 25 h behind keeps what that device asked for a moment ago, with no device now (invariant 2)", async () => {
  const name = unique("worker-devices");
  const room = unique("room");
  const host = new Host();
  host.auto = () => ({ status: 200, body: "b-answer" });
  const other = { url: "https://api.example.test/items?on=device-b" };
  const ours = { url: "https://api.example.test/items?on=this-browser" };
  const peersOf = peersOn(server, room);

  // Device B, whose wall clock runs 25 h behind: its result says it was fetched 25 h ago.
  const b = await deviceBehind(host, 25, other, peersOf);

  // This browser's worker syncs with B and persists its result.
  const first = visit(host, name, { connectPeers: (doc) => peersOf(doc) });
  try {
    await expect(first.tab.ensure(other)).resolves.toMatchObject({ status: "success", data: "b-answer" });
    await persisted(name, "b-answer");
  } finally {
    first.close();
  }

  // Reloaded at once, its worker on tabs alone (the devices turned off): it loads B's result and
  // asks for something else, and its sweep looks at what it loaded.
  const next = visit(host, name);
  try {
    await next.tab.ensure(ours);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Kept: B asked for it a moment ago, 25 h ago on B's clock.
    expect(internalsOf(next.workerStore()).records.results.keys()).toHaveLength(2);
    expect(next.workerStore().snapshot(other)).toMatchObject({ status: "success", data: "b-answer" });
    expect(host.calls.filter((c) => c.url === other.url).map((c) => c.from)).toEqual(["b"]);
  } finally {
    next.close();
    b.destroy();
  }
}, 20_000);
