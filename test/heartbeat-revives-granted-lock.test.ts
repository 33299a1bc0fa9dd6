/**
 * README, Design notes ("Web Locks, not timers, within a browser"): a page back from the
 * back/forward cache holds its lock again under the same id; a tab that was granted that lock
 * "takes the page's next claim or heartbeat as a sign of life and watches its lock again". The
 * claim is pinned in test/react/page-lifecycle.test.ts; here the heartbeat alone: the claim it
 * covers stands unchanged, and only the page's heartbeat record moves after the grant.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lockName } from "../src/core/locks.ts";
import { background, tick, twoTabs, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 5000;

describe("README, Design notes · Web Locks, not timers: a heartbeat is a granted-dead replica's sign of life", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a tab granted another tab's lock watches it again at that tab's next heartbeat: its unchanged claim is not taken over", async () => {
    const { locks, c, a, b } = await twoTabs();
    const asked = background(a.ensure(req));
    await tick(100);
    expect(c.host.calls).toHaveLength(1);
    // b judges a's claim (same browser): it queues on a's lock.
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });

    // a's page lets its lock go (into the back/forward cache, as the browser sees it): granted to b.
    locks.crash("a");
    await tick();
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: true });
    expect(b.inspect().keys[0]?.claim?.reason).toBe("lock-released");

    // Back, the page holds its lock again under the same id; its request runs on and it beats.
    void locks.forTab("a").request(lockName(a.replicaId), { mode: "exclusive" }, () => new Promise(() => {}));
    const claim = b.claims()[0]![1];
    await tick(LEASE / 3 + 100);
    expect(b.claims()[0]![1]).toEqual(claim); // nothing but the heartbeat moved
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });

    // b asks: it waits on a, whose lock it watches again, and sends nothing for several leases.
    const waited = background(b.ensure(req));
    await tick(LEASE * 3);
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(200, "by a");
    await expect(until(asked)).resolves.toMatchObject({ data: "by a" });
    await expect(until(waited)).resolves.toMatchObject({ data: "by a" });
    c.destroy();
  });
});
