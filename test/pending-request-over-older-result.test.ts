/**
 * Invariant 8 (pending is truthful) across replicas under the outran rule (freshness.ts) when the
 * older outcome above a running request is a result: a device, cut off, recorded revisions 1 and
 * 2 an hour ago; a asked for the key, its request runs under a claim of revision 1, and b shows
 * the key in sync with a. Healed, the device's results hold data read before a's request was sent:
 * they do not answer it, and a's result will be recorded over them at revision 2. a and b showed
 * "success" with the old data and no claim while a's request ran (isFetchingAnywhere false): the
 * claim was lifted onto the older result's revision and read as finished work there. Both now
 * show it pending beside the data they have, a's claim named, as TanStack shows a refetch
 * (status "success", fetchStatus "fetching"). Once a goes silent for its lease, the result stands.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 300;
const HOUR = 3_600_000;

async function outranOlderResult() {
  const c = cluster(3, { settleMs: 20, leaseMs: LEASE, locks: null });
  const [a, b, device] = c.stores;
  c.net.isolate(c.docOf(device!));
  c.host.auto = () => ({ status: 200, body: { n: "an hour ago" } });
  for (let i = 0; i < 2; i++) await until(device!.refetch(req)); // the device's revisions 1 and 2
  await tick(HOUR);
  c.host.auto = undefined;
  const shown: string[] = [];
  b!.subscribe(req, () => shown.push(b!.snapshot(req).status));
  const ensured = background(a!.ensure(req)); // a's revision 1, sent an hour after the device's
  await tick(50);
  const call = c.host.calls.at(-1)!;
  expect(call.state).toBe("in-flight");
  c.net.heal(c.docOf(device!));
  await tick(50);
  expect(call.aborted).toBe(false);
  return { c, a: a!, b: b!, ensured, call, shown };
}

describe("invariant 8: a request that outran an older result at a higher revision is pending", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the claimant and a replica in sync with it show a's claim beside the old data until a's result replaces it", async () => {
    const { c, a, b, ensured, call, shown } = await outranOlderResult();
    for (const [s, mine] of [
      [a, true],
      [b, false],
    ] as const) {
      expect(s.snapshot(req)).toEqual({
        status: "pending",
        data: { n: "an hour ago" },
        claim: { replicaId: a.replicaId, mine, stale: false },
      });
    }
    await tick(3 * LEASE); // a's heartbeats keep its claim live while its request runs
    expect(b.snapshot(req).status).toBe("pending");
    call.respond(200, { n: "newer" });
    expect(await until(ensured)).toEqual({ status: "success", data: { n: "newer" } });
    await tick();
    for (const s of [a, b]) expect(s.snapshot(req)).toEqual({ status: "success", data: { n: "newer" } });
    expect(shown.at(-1)).toBe("success");
    expect(c.host.calls).toHaveLength(3);
  });

  it("once a goes silent for its lease, b's pane is told the older result stands, and sends nothing", async () => {
    const { c, a, b, shown } = await outranOlderResult();
    expect(b.snapshot(req).status).toBe("pending");
    c.crash(a);
    await tick(LEASE + 50);
    expect(shown.at(-1)).toBe("success");
    expect(b.snapshot(req)).toEqual({ status: "success", data: { n: "an hour ago" } });
    expect(c.host.calls).toHaveLength(3);
  });
});
