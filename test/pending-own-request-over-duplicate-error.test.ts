/**
 * Invariant 8 (pending is truthful: pending while a local request is in flight) when a partition's
 * duplicate fails first. Both sides claimed and sent revision 1; the other side's request failed
 * and its error, healed in, is recorded at the very revision this replica's request still runs at.
 * That error answers the waits (it is an outcome of the key), but it does not end this replica's
 * request, whose result will replace it (invariant 7): the replica showed "error, no data", not
 * pending, for as long as its own request ran. Found by test/chaos-replicas.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostCall } from "../sim/host.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

describe("invariant 8: a replica whose own request runs is pending, though a duplicate's error of its revision came home first", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("shows pending, its own claim and the error beside it until its result replaces the error", async () => {
    const c = cluster(2, { settleMs: 20 });
    const [a, b] = c.stores;
    c.net.isolate(c.docOf(a!));
    c.net.isolate(c.docOf(b!));
    a!.subscribe(req, () => {}); // a's pane shows the key
    const pa = a!.ensure(req);
    const pb = b!.ensure(req);
    await tick(50);
    const [fromA, fromB] = c.host.calls as [HostCall, HostCall];
    fromB.fail(new TypeError("fetch failed"));
    await tick();
    c.net.heal();
    await tick();
    expect(fromA.state).toBe("in-flight");
    const shown = a!.snapshot(req);
    expect(shown).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, mine: true, stale: false } });
    expect(shown.error?.message).toContain("network error");
    expect(shown.data).toBeUndefined();
    // The error is an outcome of the key: the waits end with it, settled (a resolved ask never reads
    // pending); a's snapshot tells that its request runs on.
    await expect(until(pa)).resolves.toEqual({ status: "error", error: shown.error });
    expect(a!.snapshot(req)).toMatchObject({ status: "pending", claim: { mine: true } });
    await expect(until(pb)).resolves.toMatchObject({ error: shown.error });
    fromA.respond(200, { good: true });
    await tick();
    for (const s of [a!, b!]) expect(s.snapshot(req)).toEqual({ status: "success", data: { good: true } });
  });
});
