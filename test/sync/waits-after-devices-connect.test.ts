/**
 * Invariant 11's kept request (joined-claim-outlives-claimant.test.ts) meets presence that moves:
 * a tab that waits on another tab's claim, then connects to the devices (connectPeers after the
 * store: a login, back online), publishes itself there from then on, and its entry in the tabs'
 * awareness stays (it has not left, tab-joins-devices-presence.test.ts). That entry must not keep
 * saying it waits: a tab on the tabs' awareness alone would keep every later request of the key it
 * no longer wants, for as long as the joiner lives.
 */
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { until } from "./wait.ts";

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

/** A fetch that never answers and remembers each request's signal. */
function hangingFetch() {
  const signals: AbortSignal[] = [];
  const fetch = ((_: unknown, init?: RequestInit) => {
    signals.push(init!.signal!);
    return new Promise<Response>(() => {});
  }) as typeof globalThis.fetch;
  return { fetch, signals };
}

function tab(name: string, fetch: typeof globalThis.fetch) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch, settleMs: 10, locks: null });
  onTestFinished(() => (store.destroy(), tabs.destroy(), doc.destroy()));
  return { doc, tabs, store };
}

describe("a joiner that moves to the devices' presence leaves no waits behind in the tabs' (invariant 11, invariant 1)", () => {
  it("it stops waiting after it connected to the devices: the tab that sent the request, its own ask gone, aborts it", async () => {
    const name = unique("tabs");
    const host = hangingFetch();
    const a = tab(name, host.fetch);
    const b = tab(name, hangingFetch().fetch);
    await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
    const req = { url: "https://api.example.test/moved" };
    const asked = new AbortController();
    a.store.ensure(req, { signal: asked.signal }).catch(() => {});
    await vi.waitFor(() => expect(host.signals).toHaveLength(1), { timeout: 5000, interval: 10 });
    const waits = new AbortController();
    b.store.ensure(req, { signal: waits.signal }).catch(() => {});
    const bId = b.tabs.awareness.clientID;
    const waitsSeen = () => Object.keys(a.tabs.awareness.getStates().get(bId)?.sharedFetch?.waits ?? {}).length > 0;
    await until(a.tabs.awareness, "change", waitsSeen);
    // B reaches the other devices now: its presence goes there (a sync server's awareness).
    const devices = new Awareness(b.doc);
    onTestFinished(() => devices.destroy());
    onTestFinished(registerConnector(b.doc, { whenSynced: Promise.resolve(), crossDevice: true, awareness: devices }));
    await vi.waitFor(() => expect(devices.getLocalState()?.sharedFetch?.replicaId).toBe(b.store.replicaId), {
      timeout: 5000,
      interval: 10,
    });
    // B no longer waits, then A's own ask goes: nobody wants the request any more.
    waits.abort();
    await vi.waitFor(() => expect(devices.getLocalState()?.sharedFetch?.waits).toBeUndefined(), { timeout: 5000, interval: 10 });
    asked.abort();
    await vi.waitFor(() => expect(host.signals[0]!.aborted).toBe(true), { timeout: 5000, interval: 20 });
    // B is still present for A (it has not left), saying it waits on nothing.
    expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true);
    expect(waitsSeen()).toBe(false);
  }, 15_000);
});
