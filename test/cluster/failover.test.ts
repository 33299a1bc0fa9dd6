import { describe, expect, it, onTestFinished } from "vitest";
import { until } from "../sync/wait.ts";
import { peer, uniqueRoom, useCluster, when, type Peer } from "./harness.ts";

const env = useCluster();

/** Resolves once `p` sees `other`'s replica in its presence (so a removal would mean something). */
const sees = (p: Peer, other: Peer): Promise<void> =>
  until(p.conn.awareness, "change", () => p.conn.awareness.getStates().get(other.doc.clientID)?.sharedFetch !== undefined);

// Bound on requests per key when the claimant's instance dies mid-request: 1 + one takeover, the
// takeover only if the claimant stays unreachable for a whole lease (DESIGN.md: a duplicate is
// harmless by invariants 6, 7 and 12). Both cases below are pinned exactly.
describe("the instance the claimant is connected to is SIGKILLed mid-request", () => {
  it("the claimant fails over to the other instance and finishes; the result reaches every peer; 1 request", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const [u0, u1] = cluster.urls as [string, string];
    onTestFinished(() => cluster.startInstance(0).catch(() => {})); // for the next test, even on failure
    const room = uniqueRoom("failover");
    const path = `/${room}/items`;
    const req = { url: host.url(path) };
    const LEASE = 30_000; // longer than any failover here: a takeover would be a bug, not a bound
    const a = peer(cluster, room, [u0, u1], { leaseMs: LEASE }); // the claimant, on instance 0
    const c = peer(cluster, room, [u0, u1], { leaseMs: LEASE }); // a waiter on the same instance
    const b = peer(cluster, room, [u1, u0], { leaseMs: LEASE }); // a waiter on the surviving one
    await Promise.all([a, b, c].map((p) => p.conn.whenSynced));
    await Promise.all([sees(b, a), sees(c, a)]);

    host.hold = true;
    const fromA = a.store.ensure(req);
    await host.whenCount(path, 1);
    await Promise.all([
      when(b.store, req, () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId),
      when(c.store, req, () => c.store.snapshot(req).claim?.replicaId === a.store.replicaId),
    ]);
    const fromB = b.store.ensure(req);
    const fromC = c.store.ensure(req);

    await cluster.killInstance(0);
    // The request completes while its claimant is offline or reconnecting: the write waits in its doc.
    host.release();
    const results = await Promise.all([fromA, fromB, fromC]);
    for (const result of results) expect(result).toMatchObject({ status: "success", data: { path, n: 1 } });
    expect(a.conn.url).toBe(u1);
    expect(c.conn.url).toBe(u1);
    expect(host.count(path)).toBe(1);
  });

  it("a claimant that cannot fail over is taken over after the lease; it gets the result once its instance is back; 2 requests", async () => {
    const cluster = env.cluster();
    const host = env.host();
    const [u0, u1] = cluster.urls as [string, string];
    onTestFinished(() => cluster.startInstance(0).catch(() => {}));
    const room = uniqueRoom("no-failover");
    const path = `/${room}/items`;
    const req = { url: host.url(path) };
    const LEASE = 2000; // instance 0 dies silently: no presence removal crosses, only the lease tells
    const a = peer(cluster, room, [u0], { leaseMs: LEASE }); // knows instance 0 only
    const b = peer(cluster, room, [u1], { leaseMs: LEASE });
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    await sees(b, a);

    host.hold = true;
    const fromA = a.store.ensure(req);
    fromA.catch(() => {}); // awaited below; only a failed test leaves it to be aborted at cleanup
    await host.whenCount(path, 1);
    await when(b.store, req, () => b.store.snapshot(req).claim?.replicaId === a.store.replicaId);
    const fromB = b.store.ensure(req);

    await cluster.killInstance(0);
    await host.whenCount(path, 2); // b took over once a's heartbeats stopped for a lease
    host.release();
    await expect(fromB).resolves.toMatchObject({ status: "success" });
    await cluster.startInstance(0); // a's reconnect loop finds its instance again
    await expect(fromA).resolves.toMatchObject({ status: "success" });
    await when(
      a.store,
      req,
      () =>
        a.store.snapshot(req).data !== undefined &&
        JSON.stringify(a.store.snapshot(req).data) === JSON.stringify(b.store.snapshot(req).data),
    );
    expect(host.count(path)).toBe(2);
  });
});
