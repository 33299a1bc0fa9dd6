// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, twoTabs, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

describe("page lifecycle: a page hidden for good or frozen releases its claims (issue: hidden tabs, bfcache)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pagehide aborts local work and marks its claim abandoned: another replica takes it over at once, by rewriting it", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const waiting = a!.ensure(req);
    await tick(100);
    window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
    await tick();
    expect(c.host.calls[0]!.aborted).toBe(true);
    expect(a!.claims()[0]![1]).toMatchObject({ replicaId: a!.replicaId, abandoned: true });
    // A replica of another page (created after the event, so it is not the one hidden) takes over
    // without waiting a lease; the claim goes from a's straight to b's.
    const b = c.join({});
    expect(b.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: true } });
    const pb = b.ensure(req);
    await tick(30);
    expect(c.host.calls).toHaveLength(2);
    expect(b.claims().map(([, claim]) => claim.replicaId)).toEqual([b.replicaId]);
    // The page comes back from the back/forward cache: its waiter is still there and sees b's work.
    window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
    await tick(100);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "by b");
    await expect(until(pb)).resolves.toMatchObject({ data: "by b" });
    await expect(until(waiting)).resolves.toMatchObject({ data: "by b" });
    c.destroy();
  });

  it("a tab back from the back/forward cache is alive again to the tabs that were granted its lock (invariant 3): its next claim is not taken over", async () => {
    const { c, a, b } = await twoTabs();
    background(a.ensure(req));
    await tick(100);
    background(b.ensure(req)); // b waits on a's claim and queues on a's lock (same browser)
    await tick(10);
    window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true })); // a lets its lock go: granted to b
    await tick();
    window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true })); // a holds it again, same id
    await tick(100);
    for (const call of c.host.open) call.respond(200, "first");
    await tick(100);
    const refetched = background(a.refetch(req)); // a new claim of a's: a sign of life
    await tick(100);
    expect(c.host.open).toHaveLength(1);
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });
    const asked = background(b.ensure(req, { maxAgeMs: 0 })); // b wants it too: it waits on a, sends nothing
    await tick(1000);
    expect(c.host.open).toHaveLength(1);
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });
    c.host.open[0]!.respond(200, "second");
    await expect(until(refetched)).resolves.toMatchObject({ data: "second" });
    await expect(until(asked)).resolves.toMatchObject({ data: "second" });
    c.destroy();
  });

  it("a tab merely hidden (visibilitychange) keeps its claims (README, Design notes: Web Locks, not timers): its request runs on, the other tab waits on it", async () => {
    const { c, a, b } = await twoTabs();
    const asked = background(a.ensure(req));
    await tick(100);
    const waiting = background(b.ensure(req)); // same browser: b waits on a's claim and queues on its lock
    await tick(10);
    const visibility = vi.spyOn(document, "visibilityState", "get").mockReturnValue("hidden");
    document.dispatchEvent(new Event("visibilitychange"));
    await tick(30_000); // far past the 5 s lease: only the lock says whether a lives
    expect(c.host.calls).toHaveLength(1);
    expect(c.host.calls[0]!.aborted).toBe(false);
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });
    expect(b.claims().map(([, claim]) => claim.abandoned ?? false)).toEqual([false]);
    c.host.calls[0]!.respond(200, "by hidden a");
    await expect(until(asked)).resolves.toMatchObject({ data: "by hidden a" });
    await expect(until(waiting)).resolves.toMatchObject({ data: "by hidden a" });
    visibility.mockRestore();
    c.destroy();
  });

  it("a frozen page (Page Lifecycle 'freeze') lets another replica take over at once", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    const other = c.join({});
    const pb = other.ensure(req);
    document.dispatchEvent(new Event("freeze"));
    await tick(100);
    // Both stores live in this one jsdom window, so both froze; a's claim is left abandoned.
    expect(other.claims().map(([, claim]) => claim.abandoned)).toEqual([true]);
    document.dispatchEvent(new Event("resume"));
    await tick(100);
    expect(c.host.open).toHaveLength(1);
    c.host.open[0]!.respond(200, 1);
    await expect(until(pb)).resolves.toMatchObject({ data: 1 });
    c.destroy();
  });
});
