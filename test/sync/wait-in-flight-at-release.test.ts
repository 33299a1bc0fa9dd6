/**
 * Invariant 11 meets a race: a tab joins another tab's request in flight just as the claimant's
 * own ask ends (a route change in one tab while another mounts the same data). The joiner's wait
 * is on the BroadcastChannel when the claimant decides; aborted at once, the joiner finds the
 * claim released and sends the request again. The claimant keeps it until the tabs answered a
 * flush (which comes behind what they posted before it), then counts the waits it heard.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { browserLocks } from "../harness/browser-locks.ts";
import { expectJoinedRequestGoesOn } from "../harness/joined-request.ts";

afterEach(() => vi.unstubAllGlobals());

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

function tab(name: string, host: Host, id: string) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(id), settleMs: 10, locks: null });
  onTestFinished(() => (store.destroy(), tabs.destroy(), doc.destroy()));
  return { tabs, store };
}

const opts = { timeout: 5000, interval: 10 };

/** Tabs A and B of one browser, each present to the other; `frozen`: a third tab's lock, which never answers a flush. */
async function twoTabs(frozen?: string) {
  const name = unique("tabs");
  vi.stubGlobal("navigator", { locks: browserLocks(frozen ? [`shared-fetch:tabs:${name}#${frozen}`] : []) });
  const host = new Host();
  const a = tab(name, host, "a");
  const b = tab(name, host, "b");
  await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
  await vi.waitFor(() => expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true), opts);
  return { host, a, b };
}

describe("a wait on its way when the claimant's own ask ends (invariant 11)", () => {
  it("a tab joins as the claimant's ask ends in the same moment: one request, which answers the joiner", async () => {
    const { host, a, b } = await twoTabs();
    const req = { url: "https://api.example.test/joined-as-released" };
    const asked = new AbortController();
    a.store.ensure(req, { signal: asked.signal }).catch(() => {});
    await host.whenCalls(1);
    await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId }), opts);
    const waiting = b.store.ensure(req);
    waiting.catch(() => {});
    asked.abort();
    await expectJoinedRequestGoesOn(host, waiting, 500);
  }, 15_000);

  it("nobody joins: the request the claimant no longer wants is aborted once the tabs answered, and not sent again", async () => {
    const { host, a, b } = await twoTabs();
    const req = { url: "https://api.example.test/nobody-joins" };
    const asked = new AbortController();
    a.store.ensure(req, { signal: asked.signal }).catch(() => {});
    await host.whenCalls(1);
    asked.abort();
    await vi.waitFor(() => expect(host.calls[0]!.aborted).toBe(true), { timeout: 2000, interval: 5 });
    await new Promise((r) => setTimeout(r, 300));
    expect(host.calls).toHaveLength(1);
    expect(b.store.snapshot(req).status).not.toBe("success");
  }, 15_000);

  it("a grace that ended while the claimant's ask was back is not spent for its next request: a tab that joins that one is answered by it", async () => {
    // A third tab the lock state counts that never answers (frozen): each flush takes its bound.
    const { host, a, b } = await twoTabs("frozen");
    const req = { url: "https://api.example.test/grace-spent" };
    const first = new AbortController();
    a.store.ensure(req, { signal: first.signal }).catch(() => {});
    await host.whenCalls(1);
    // Left, then back (a route change and back) while the flush waits for the frozen tab.
    first.abort();
    await new Promise((r) => setTimeout(r, 0)); // its decision made: the flush is asked
    const back = a.store.ensure(req);
    await new Promise((r) => setTimeout(r, 500));
    host.calls[0]!.respond(200, { n: 1 });
    await expect(back).resolves.toMatchObject({ status: "success" });
    // The next request of the key, joined by B just as A's ask ends.
    const again = new AbortController();
    a.store.refetch(req, { signal: again.signal }).catch(() => {});
    await host.whenCalls(2);
    await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId }), opts);
    const joined = b.store.refetch(req);
    joined.catch(() => {});
    again.abort();
    await new Promise((r) => setTimeout(r, 500));
    expect(host.calls.map((c) => c.aborted)).toEqual([false, false]);
    host.calls[1]!.respond(200, { n: 2 });
    await expect(joined).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(host.calls).toHaveLength(2);
  }, 15_000);
});
