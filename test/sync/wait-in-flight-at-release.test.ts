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

afterEach(() => vi.unstubAllGlobals());

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

/** One browser's lock state, as `navigator.locks.query()` reports it (the tabs' flush counts tabs by it). */
function browserLocks(...ghosts: string[]) {
  // A ghost: a tab the lock state counts that never answers (frozen), so a flush takes its bound.
  const held = new Map<string, number>(ghosts.map((name) => [name, 1]));
  return {
    request(name: string, _options: unknown, callback: () => Promise<void>) {
      held.set(name, (held.get(name) ?? 0) + 1);
      return Promise.resolve(callback()).finally(() => {
        const n = (held.get(name) ?? 1) - 1;
        if (n > 0) held.set(name, n);
        else held.delete(name);
      });
    },
    query: async () => ({ held: [...held.keys()].map((name) => ({ name })) }),
  };
}

function tab(name: string, host: Host, id: string) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name, indexeddb: false });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(id), settleMs: 10, locks: null });
  onTestFinished(() => (store.destroy(), tabs.destroy(), doc.destroy()));
  return { tabs, store };
}

const opts = { timeout: 5000, interval: 10 };

describe("a wait on its way when the claimant's own ask ends (invariant 11)", () => {
  it("a tab joins as the claimant's ask ends in the same moment: one request, which answers the joiner", async () => {
    vi.stubGlobal("navigator", { locks: browserLocks() });
    const host = new Host();
    const name = unique("tabs");
    const a = tab(name, host, "a");
    const b = tab(name, host, "b");
    await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
    await vi.waitFor(() => expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true), opts);
    const req = { url: "https://api.example.test/joined-as-released" };
    const asked = new AbortController();
    a.store.ensure(req, { signal: asked.signal }).catch(() => {});
    await host.whenCalls(1);
    await vi.waitFor(() => expect(b.store.snapshot(req).claim).toMatchObject({ replicaId: a.store.replicaId }), opts);
    const waiting = b.store.ensure(req);
    waiting.catch(() => {});
    asked.abort();
    await new Promise((r) => setTimeout(r, 500));
    expect(host.calls.map((c) => c.aborted)).toEqual([false]);
    host.calls[0]!.respond(200, { by: "a" });
    await expect(waiting).resolves.toMatchObject({ status: "success", data: { by: "a" } });
    expect(host.calls).toHaveLength(1);
  }, 15_000);

  it("nobody joins: the request the claimant no longer wants is aborted once the tabs answered, and not sent again", async () => {
    vi.stubGlobal("navigator", { locks: browserLocks() });
    const host = new Host();
    const name = unique("tabs");
    const a = tab(name, host, "a");
    const b = tab(name, host, "b");
    await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
    await vi.waitFor(() => expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true), opts);
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
    const name = unique("tabs");
    vi.stubGlobal("navigator", { locks: browserLocks(`shared-fetch:tabs:${name}#frozen`) });
    const host = new Host();
    const a = tab(name, host, "a");
    const b = tab(name, host, "b");
    await Promise.all([a.tabs.whenSynced, b.tabs.whenSynced]);
    await vi.waitFor(() => expect(a.store.inspect().replicas.some((r) => r.replicaId === b.store.replicaId && r.present)).toBe(true), opts);
    const req = { url: "https://api.example.test/grace-spent" };
    const first = new AbortController();
    a.store.ensure(req, { signal: first.signal }).catch(() => {});
    await host.whenCalls(1);
    // Left, then back (a route change and back) while the flush waits for the frozen tab.
    first.abort();
    await new Promise((r) => setTimeout(r, 50));
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
