/**
 * Invariant 11 across connector mixes in one browser, the other way round from
 * waits-heard-by-tabs-claimant: the claimant runs connectTabs and connectPeers (its presence
 * follows the devices' awareness), the joiner is a tab of its browser on connectTabs alone, whose
 * waits are only in the tabs' awareness. The claimant must read waits there too: else it aborts
 * once its own ask ends, and the joiner sends the request again.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { internalsOf } from "../../src/internals.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { browserLocks } from "../harness/browser-locks.ts";
import { expectJoinedRequestGoesOn } from "../harness/joined-request.ts";

afterEach(() => vi.unstubAllGlobals());

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

function tab(name: string, host: Host, id: string, devices: boolean, locks?: FakeLocks) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  // A sync server's awareness, registered as connectPeers registers its own: nobody else is on it,
  // so only the tabs' presence can carry the joiner's wait.
  const peers = devices ? new Awareness(doc) : undefined;
  const unregister = peers ? registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, awareness: peers }) : () => {};
  const store = createSharedFetchStore({
    doc,
    awareness: tabs.awareness,
    fetch: host.fetchAs(id),
    settleMs: 10,
    ...(locks ? { locks: locks.forTab(id), browserId: "browser-1" } : { locks: null }),
  });
  onTestFinished(() => (store.destroy(), unregister(), peers?.destroy(), tabs.destroy(), doc.destroy()));
  return { tabs, store, peers };
}

const opts = { timeout: 5000, interval: 10 };

async function claimed(host: Host, locks?: FakeLocks) {
  const name = unique("tabs");
  const a = tab(name, host, "a", true, locks);
  const b = tab(name, host, "b", false, locks);
  await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
  await vi.waitFor(() => expect(a.peers!.getLocalState()?.sharedFetch?.replicaId).toBe(a.store.replicaId), opts);
  await vi.waitFor(() => expect(b.store.inspect().replicas.some((r) => r.replicaId === a.store.replicaId && r.present)).toBe(true), opts);
  const req = { url: `https://api.example.test/${unique("mixed")}` };
  const asked = new AbortController();
  a.store.ensure(req, { signal: asked.signal }).catch(() => {});
  await host.whenCalls(1);
  await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId }), opts);
  return { a, b, req, asked };
}

describe("a claimant with both connectors hears a joiner of its browser on connectTabs alone (invariant 11)", () => {
  it("the joiner's wait is heard: the claimant's own ask ends, the one request goes on and answers the joiner", async () => {
    const host = new Host();
    const { a, b, req, asked } = await claimed(host);
    const waiting = b.store.ensure(req);
    waiting.catch(() => {});
    // Given time to arrive (a BroadcastChannel message): without the fix it never does.
    const heard = () => expect(a.store.inspect().keys.find((k) => k.claim)?.claim?.waiters).toEqual([b.store.replicaId]);
    await vi.waitFor(heard, { timeout: 2000, interval: 10 }).catch(() => {});
    asked.abort();
    await expectJoinedRequestGoesOn(host, waiting, 300);
  }, 15_000);

  it("the joiner withdraws its wait (its ask aborted): the claimant, its own ask ended too, aborts and nobody sends again", async () => {
    const host = new Host();
    const { a, b, req, asked } = await claimed(host);
    const joined = new AbortController();
    b.store.ensure(req, { signal: joined.signal }).catch(() => {});
    await vi.waitFor(() => expect(a.store.inspect().keys.find((k) => k.claim)?.claim?.waiters).toEqual([b.store.replicaId]), opts);
    asked.abort();
    await new Promise((r) => setTimeout(r, 300));
    expect(host.calls[0]!.aborted).toBe(false);
    joined.abort();
    await vi.waitFor(() => expect(host.calls[0]!.aborted).toBe(true), opts);
    await new Promise((r) => setTimeout(r, 300));
    expect(host.calls).toHaveLength(1);
  }, 15_000);

  it("the joiner's wait is on its way as the claimant's ask ends (nobody on the devices' side): the claimant awaits the tabs' flush, one request", async () => {
    vi.stubGlobal("navigator", { locks: browserLocks() });
    const host = new Host();
    const { a, b, req, asked } = await claimed(host);
    const waiting = b.store.ensure(req);
    waiting.catch(() => {});
    asked.abort();
    await new Promise((r) => setTimeout(r, 500));
    expect(host.calls.map((c) => c.aborted)).toEqual([false]);
    host.calls[0]!.respond(200, { by: "a" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
    expect(host.calls).toHaveLength(1);
    expect(a.store.snapshot(req).status).toBe("success");
  }, 15_000);

  it("the joiner crashes while it waits: the claimant sees its Web Lock released and aborts at once, nobody sends again", async () => {
    const host = new Host();
    const locks = new FakeLocks();
    const { a, b, req, asked } = await claimed(host, locks);
    b.store.ensure(req).catch(() => {});
    await vi.waitFor(() => expect(a.store.inspect().keys.find((k) => k.claim)?.claim?.waiters).toEqual([b.store.replicaId]), opts);
    asked.abort();
    await new Promise((r) => setTimeout(r, 300));
    expect(host.calls[0]!.aborted).toBe(false);
    // No goodbye: its entry in the tabs' awareness stays until it times out (30 s).
    internalsOf(b.store).dev.crash();
    locks.crash("b");
    await vi.waitFor(() => expect(host.calls[0]!.aborted).toBe(true), { timeout: 3000, interval: 10 });
    await new Promise((r) => setTimeout(r, 300));
    expect(host.calls).toHaveLength(1);
  }, 15_000);
});
