// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

describe("page lifecycle: a page hidden for good or frozen releases its claims (issue: hidden tabs, bfcache)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pagehide aborts local work and releases the claim at once; pageshow from the back/forward cache resumes", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const waiting = a!.ensure(req);
    await tick(100);
    expect(a!.claims()).toHaveLength(1);
    window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
    await tick();
    expect(c.host.calls[0]!.aborted).toBe(true);
    expect(a!.claims()).toHaveLength(0); // other tabs may take over now, not after a lease
    window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
    await tick(100);
    expect(c.host.calls).toHaveLength(2); // the waiter is still there and claims again
    c.host.calls[1]!.respond(200, "back");
    await expect(until(waiting)).resolves.toMatchObject({ data: "back" });
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
    // Both stores live in this one jsdom window, so both froze; the doc shows no claim left behind.
    expect(other.claims()).toHaveLength(0);
    document.dispatchEvent(new Event("resume"));
    await tick(100);
    expect(c.host.open).toHaveLength(1);
    c.host.open[0]!.respond(200, 1);
    await expect(until(pb)).resolves.toMatchObject({ data: 1 });
    c.destroy();
  });
});
