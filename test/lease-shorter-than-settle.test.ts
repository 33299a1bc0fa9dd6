/**
 * A settle window longer than a claim's lease (a lease set low for a fast endpoint, a window sized
 * by a slow link's round trips or stretched by a busy loop): the claim must not go stale while it
 * settles, or two waiting replicas take it over from each other for ever and nobody sends it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

describe("invariants 3 and 10: a claim still in its settle window is alive, however short its lease", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("leaseMs 200 under a 300 ms settle window: one replica sends the request, once, and both get its answer", async () => {
    const c = cluster(2, { settleMs: 300 });
    c.net.delayMs = 5;
    const [a, b] = c.stores;
    const takeovers: string[] = [];
    for (const s of [a!, b!]) s.onEvent((e) => e.type === "claimed" && e.takeoverOf && takeovers.push(s.replicaId));
    const first = background(a!.ensure(req, { leaseMs: 200 }));
    await tick(50);
    const second = background(b!.ensure(req, { leaseMs: 200 }));
    await tick(2000);
    expect(takeovers).toEqual([]);
    expect(c.host.calls).toHaveLength(1);
    expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
    c.host.calls[0]!.respond(200, "once");
    await expect(until(first)).resolves.toEqual({ status: "success", data: "once" });
    await expect(until(second)).resolves.toEqual({ status: "success", data: "once" });
  });

  it("a claimant cut off while settling is still taken over one lease after its last beat", async () => {
    const c = cluster(2, { settleMs: 300 });
    const [a, b] = c.stores;
    background(a!.ensure(req, { leaseMs: 200 }));
    await tick(10);
    const waiting = background(b!.ensure(req, { leaseMs: 200 }));
    c.crash(a!);
    // Silent from here: b takes over after 200 ms, settles 300 ms and sends (a's own copy, cut off, runs too).
    await tick(200 + 300 + 50);
    expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: b!.replicaId, mine: true } });
    c.host.calls.at(-1)!.respond(200, "taken over");
    await expect(until(waiting)).resolves.toEqual({ status: "success", data: "taken over" });
  });
});
