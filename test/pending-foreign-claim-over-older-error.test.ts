/**
 * Invariant 8 (pending is truthful) across replicas under the outran rule (freshness.ts): b's
 * refetch of a key failed at revision 2 while a, cut off, asked for it and sent its request under
 * a claim of revision 1. Healed, a's claim stands below b's error, which was read before a's
 * request and does not answer it (a's result will be recorded over it, at revision 2). a showed
 * pending (test/pending-own-request-over-older-error.test.ts) but b showed "error, no data" while
 * a's request ran: a foreign claim was judged by its own revision only. Once a goes silent for its
 * lease, the error stands again (as for a claim at the error's revision). Found by
 * test/chaos-replicas.test.ts (seed 20).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 300;

async function outranAcrossPartition() {
  const c = cluster(2, { settleMs: 20, leaseMs: LEASE, locks: null });
  const [a, b] = c.stores;
  const shown: string[] = [];
  b!.subscribe(req, () => shown.push(b!.snapshot(req).status));
  c.net.isolate(c.docOf(a!));
  background(b!.ensure(req));
  background(b!.refetch(req, { skipInFlight: true })); // b claims revision 2 alone
  await tick(50);
  c.host.calls[0]!.respond(500, "no");
  await tick(100);
  background(a!.ensure(req));
  await tick(50);
  c.net.heal();
  await tick(50);
  expect(c.host.calls).toHaveLength(2);
  expect(c.host.calls[1]!.state).toBe("in-flight");
  return { c, a: a!, b: b!, shown };
}

describe("invariant 8: a foreign claim that outran an older error is pending", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("b shows a's claim, pending, beside its own error, until a's result replaces it", async () => {
    const { c, a, b, shown } = await outranAcrossPartition();
    const snap = b.snapshot(req);
    expect(snap).toMatchObject({ status: "pending", claim: { replicaId: a.replicaId, mine: false, stale: false } });
    expect(snap.error?.status).toBe(500);
    await tick(3 * LEASE); // a's heartbeats keep its claim live while its request runs
    expect(b.snapshot(req).status).toBe("pending");
    c.host.calls[1]!.respond(200, { fresh: true });
    await tick();
    for (const s of [a, b]) expect(s.snapshot(req)).toEqual({ status: "success", data: { fresh: true } });
    expect(shown.slice(shown.lastIndexOf("error") + 1)).toEqual(["pending", "success"]);
  });

  it("once a goes silent for its lease, b's pane is told the error stands, and sends nothing", async () => {
    const { c, a, b, shown } = await outranAcrossPartition();
    expect(b.snapshot(req).status).toBe("pending");
    c.crash(a);
    await tick(LEASE + 50);
    expect(shown.at(-1)).toBe("error");
    expect(b.snapshot(req).claim).toBeUndefined();
    expect(c.host.calls).toHaveLength(2);
  });
});
