/**
 * Invariant 8 (pending is truthful) and 9 (the bound is armed) for a pane that only shows a key
 * whose claim outran an older result at the claim's own revision (freshness.ts, outran): a
 * device, cut off, recorded revision 1 an hour ago; a's request runs under its own claim of
 * revision 1, and b shows the key in sync with a. Healed, b shows a's claim pending beside the old
 * data. Once a goes silent for its lease, b's pane must be told the old result stands: with the
 * older result at a higher revision (pending-request-over-older-result) it was, at the same
 * revision nothing re-checked the claim and the pane showed "pending" for good.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 300;
const HOUR = 3_600_000;

describe("invariant 9: a pane re-checks a claim that outran an older result of its own revision", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("once the claimant goes silent for its lease, the pane is told the older result stands, and nothing is sent", async () => {
    const c = cluster(3, { settleMs: 20, leaseMs: LEASE, locks: null });
    const [a, b, device] = c.stores;
    c.net.isolate(c.docOf(device!));
    c.host.auto = () => ({ status: 200, body: { n: "an hour ago" } });
    await until(device!.refetch(req)); // the device's revision 1
    await tick(HOUR);
    c.host.auto = undefined;
    const shown: string[] = [];
    b!.subscribe(req, () => shown.push(b!.snapshot(req).status));
    background(a!.ensure(req)); // a's revision 1, sent an hour after the device's
    await tick(50);
    c.net.heal(c.docOf(device!));
    await tick(50);
    expect(c.host.calls.at(-1)!.aborted).toBe(false);
    expect(b!.snapshot(req)).toEqual({
      status: "pending",
      data: { n: "an hour ago" },
      claim: { replicaId: a!.replicaId, mine: false, stale: false },
    });
    c.crash(a!);
    await tick(LEASE + 50);
    expect(shown.at(-1)).toBe("success");
    expect(b!.snapshot(req)).toEqual({ status: "success", data: { n: "an hour ago" } });
    expect(c.host.calls).toHaveLength(2);
  });
});
