/**
 * Invariant 11 across connector mixes in one browser: a tab on connectTabs alone claims, a tab of
 * the same browser that also runs connectPeers (a page that reaches the other devices, beside one
 * that does not) joins its claim. The joiner's presence moved to the devices' awareness, its entry
 * in the tabs' kept; its waits must reach the tabs' one too, the only presence the claimant hears:
 * else the claimant aborts once its own ask ends, and the joiner sends the request again.
 */
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { Host } from "../../sim/host.ts";
import { expectJoinedRequestGoesOn } from "../harness/joined-request.ts";

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

function tab(name: string, host: Host, id: string, devices: boolean) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  // A sync server's awareness, registered as connectPeers registers its own (no server needed:
  // the claimant is on the tabs' alone, so only the tabs' presence can carry the joiner's wait).
  const peers = devices ? new Awareness(doc) : undefined;
  const unregister = peers ? registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, awareness: peers }) : () => {};
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(id), settleMs: 10, locks: null });
  onTestFinished(() => (store.destroy(), unregister(), peers?.destroy(), tabs.destroy(), doc.destroy()));
  return { tabs, store, peers };
}

const opts = { timeout: 5000, interval: 10 };

describe("a joiner with both connectors is heard by a claimant on the tabs' awareness alone (invariant 11)", () => {
  it("the claimant's own ask ends while the joiner waits: the one request goes on and answers the joiner", async () => {
    const host = new Host();
    const name = unique("tabs");
    const a = tab(name, host, "a", false);
    const b = tab(name, host, "b", true);
    await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
    await vi.waitFor(() => expect(b.peers!.getLocalState()?.sharedFetch?.replicaId).toBe(b.store.replicaId), opts);
    await vi.waitFor(() => expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true), opts);
    const req = { url: "https://api.example.test/mixed-connectors" };
    const asked = new AbortController();
    a.store.ensure(req, { signal: asked.signal }).catch(() => {});
    await host.whenCalls(1);
    const waiting = b.store.ensure(req);
    waiting.catch(() => {});
    await vi.waitFor(() => expect(b.peers!.getLocalState()?.sharedFetch?.waits).toBeDefined(), opts);
    // Given time to arrive (a BroadcastChannel message): without the fix it never does.
    const heard = () => expect(a.store.inspect().keys.find((k) => k.claim)?.claim?.waiters).toEqual([b.store.replicaId]);
    await vi.waitFor(heard, { timeout: 2000, interval: 10 }).catch(() => {});
    asked.abort();
    await expectJoinedRequestGoesOn(host, waiting, 300);
  }, 15_000);
});
