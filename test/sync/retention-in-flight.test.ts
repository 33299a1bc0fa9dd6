/**
 * Retention must never sweep work in flight: a key asked for again after a day is claimed by one
 * replica, whose claim (and the key's last result) another replica's sweep removed while the
 * request ran. The other replicas then saw the key idle with nothing recorded while someone worked
 * on it (invariants 4 and 8), and a third replica asking for it sent a second request.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const HOUR = 3600_000;

describe("retention and claims in flight", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a sweep keeps a key whose claim is in flight: the others stay pending, nobody sends a second request", async () => {
    const c = cluster(3);
    const [a, b, d] = c.stores;
    const daily = { url: `${URL_A}/daily` };
    c.host.auto = () => ({ status: 200, body: "monday" });
    await until(a!.ensure(daily));
    await tick(25 * HOUR); // nobody asked for it since
    c.host.auto = undefined; // the next request hangs (a slow host): the claim stands meanwhile
    const refetched = background(a!.refetch(daily));
    await until(c.host.whenCalls(2));
    await tick(100);
    expect(b!.snapshot(daily)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId } });
    // b asks for something else: it notices what it saw unasked for 24 h.
    c.host.auto = (call) => (call.url.endsWith("/other") ? { status: 200, body: "other" } : undefined);
    await until(b!.ensure({ url: `${URL_A}/other` }));
    await tick(100);
    expect(b!.snapshot(daily)).toMatchObject({ status: "pending", data: "monday", claim: { replicaId: a!.replicaId } });
    const joined = background(d!.ensure(daily));
    await tick(1000);
    expect(c.host.calls.filter((call) => call.url.endsWith("/daily"))).toHaveLength(2);
    c.host.calls[1]!.respond(200, "tuesday");
    await expect(until(refetched)).resolves.toMatchObject({ status: "success", data: "tuesday" });
    // d is answered by the result still recorded, while a's refetch shows pending.
    await expect(until(joined)).resolves.toMatchObject({ data: "monday" });
    expect(d!.snapshot(daily)).toMatchObject({ status: "success", data: "tuesday" });
    expect(c.host.calls.filter((call) => call.url.endsWith("/daily"))).toHaveLength(2);
  });

  it("a request hung for longer than the retention window stays pending everywhere while its claimant heartbeats (invariant 8)", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const hung = { url: `${URL_A}/hung` };
    // The longest lease: one heartbeat every 3 min keeps the fake clock's work small over 26 h.
    const asked = background(a!.ensure(hung, { leaseMs: 9 * 60_000 }));
    await until(c.host.whenCalls(1));
    await tick(26 * HOUR);
    expect(b!.snapshot(hung)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId } });
    c.host.auto = () => ({ status: 200, body: "other" });
    await until(b!.ensure({ url: `${URL_A}/other` })); // b notices what it saw unasked for 24 h
    await tick(100);
    expect(b!.snapshot(hung)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId } });
    c.host.calls[0]!.respond(200, "at last");
    await expect(until(asked)).resolves.toMatchObject({ status: "success", data: "at last" });
  });
});
