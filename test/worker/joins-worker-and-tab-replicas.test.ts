/**
 * Invariant 11 across a rollout: the new build serves its tabs from the SharedWorker replica
 * (connectBrowser) with a sync server to reach other devices, while a tab still on the old build
 * runs its own replica on connectTabs alone. Both replicas are of one browser; what one waits on
 * must reach the other through the tabs' presence, the only one they share. The worker's store
 * was given the devices' awareness alone: neither heard the other, so a claimant whose own ask
 * ended aborted the request the other waited on, which then sent it again. The same for
 * connectBrowser's tab mode (no SharedWorker). Real docs, stores and connectTabs; FakeLocks.
 */
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import { WebSocket } from "ws";
import * as Y from "yjs";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { browser, cleanup } from "./browser-sim.ts";

const opts = { timeout: 5000, interval: 10 };

/** The worker's sync server, out of reach: its awareness hears no other replica. */
function devices(doc: Y.Doc) {
  const awareness = new Awareness(doc);
  const unregister = registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, awareness });
  return { whenSynced: Promise.resolve(), awareness, destroy: () => (unregister(), awareness.destroy()) };
}

/** A tab of the old build: its own replica on connectTabs alone, in the same browser (its locks). */
function oldTab(name: string, host: Host, locks: FakeLocks) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  const store = createSharedFetchStore({
    doc,
    awareness: tabs.awareness,
    fetch: host.fetchAs("old"),
    settleMs: 10,
    locks: locks.forTab("old"),
  });
  onTestFinished(() => (store.destroy(), tabs.destroy(), doc.destroy()));
  return { store, tabs };
}

/** `claimant` sends the request, `joiner` joins it, the claimant's own ask ends: one request, which answers the joiner. */
async function joinThenRelease(
  host: Host,
  claimant: { ensure: (r: { url: string }, o: { signal: AbortSignal }) => Promise<unknown> },
  joiner: { ensure: (r: { url: string }) => Promise<unknown> },
  claimSeen: (req: { url: string }) => unknown,
) {
  const req = { url: "https://api.example.test/rollout" };
  const asked = new AbortController();
  claimant.ensure(req, { signal: asked.signal }).catch(() => {});
  await vi.waitFor(() => expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(1), opts);
  await vi.waitFor(() => expect(claimSeen(req)).toBeDefined(), opts);
  const waiting = joiner.ensure(req);
  waiting.catch(() => {});
  // The wait crosses the BroadcastChannel; without the fix it never reaches the claimant.
  await new Promise((r) => setTimeout(r, 300));
  asked.abort();
  await new Promise((r) => setTimeout(r, 500));
  const calls = host.calls.filter((c) => c.url === req.url);
  expect(calls.map((c) => c.aborted)).toEqual([false]);
  calls[0]!.respond(200, { one: true });
  await expect(waiting).resolves.toMatchObject({ status: "success", data: { one: true } });
  expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(1);
}

describe("joins between the SharedWorker replica and an old build's tab replica of the same browser (invariant 11)", () => {
  it("the worker claims, the old tab joins, the worker's tab lets go: the request goes on for the old tab", async () => {
    const host = new Host();
    const b = browser(host, { connectPeers: (d) => devices(d) });
    const old = oldTab(b.name, host, b.locks);
    await old.tabs.whenSynced;
    await joinThenRelease(host, b.tab(), old.store, (req) => old.store.snapshot(req).claim);
  }, 15_000);

  it("the old tab claims, a worker's tab joins, the old tab lets go: the request goes on for the worker's tab", async () => {
    const host = new Host();
    host.auto = (call) => (call.url.endsWith("/warm") ? { status: 200, body: {} } : undefined);
    const b = browser(host, { connectPeers: (d) => devices(d) });
    const t = b.tab();
    const old = oldTab(b.name, host, b.locks);
    await old.tabs.whenSynced;
    // The worker's store is made once a tab asks.
    await t.ensure({ url: "https://api.example.test/warm" });
    await joinThenRelease(host, old.store, t, (req) => b.workerStore().snapshot(req).claim);
  }, 15_000);

  it("connectBrowser's tab mode (no SharedWorker) with an unreachable sync server claims, the old tab joins: one request", async () => {
    const host = new Host();
    const locks = new FakeLocks();
    const name = `rollout-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const peers = { url: "ws://127.0.0.1:9", room: name, WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket };
    const tab = connectBrowser({ name, peers, fetch: host.fetchAs("new"), locks: locks.forTab("new") });
    cleanup(() => tab.destroy());
    expect(tab.mode).toBe("tab");
    const old = oldTab(name, host, locks);
    await old.tabs.whenSynced;
    await joinThenRelease(host, tab, old.store, (req) => old.store.snapshot(req).claim);
  }, 15_000);
});
