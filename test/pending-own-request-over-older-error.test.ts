/**
 * Invariant 8 (pending while a local request is in flight) under the outran rule (freshness.ts):
 * a, cut off, asks for a key after b's request of it failed at revision 2. Healed, a's claim of
 * revision 1 stands below that error, which was read before a's request and does not answer it
 * (a's wait goes on; its result will be recorded over the error, at revision 2). a's snapshot
 * showed "error, no data" for as long as its own request ran. It now counts a request at the
 * revision its outcome will be recorded at. Found by test/chaos-replicas.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Snapshot } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

describe("invariant 8: a request that outran an older error is pending", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a's own request, sent after b's error of a higher revision, shows pending until its result replaces the error", async () => {
    const c = cluster(2, { settleMs: 20 });
    const [a, b] = c.stores;
    c.net.isolate(c.docOf(a!));
    background(b!.ensure(req));
    background(b!.refetch(req, { skipInFlight: true })); // b claims revision 2 alone
    await tick(50);
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(500, "no");
    await tick(100);
    let answered: Snapshot | undefined;
    void a!.ensure(req).then((s) => (answered = s));
    await tick();
    c.net.heal();
    await tick(50);
    expect(c.host.calls).toHaveLength(2);
    expect(c.host.calls[1]!.state).toBe("in-flight");
    expect(answered).toBeUndefined(); // the older error does not answer a's ask
    expect(a!.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, mine: true } });
    c.host.calls[1]!.respond(200, { fresh: true });
    expect(await until(a!.ensure(req))).toEqual({ status: "success", data: { fresh: true } });
    await tick();
    expect(b!.snapshot(req)).toEqual({ status: "success", data: { fresh: true } });
    expect(answered).toEqual({ status: "success", data: { fresh: true } });
  });
});
