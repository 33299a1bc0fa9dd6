/**
 * README, Scaling out: SIGTERM is how an instance is stopped in a rolling deploy. Its clients move
 * to another instance as they do when it crashes; they are not gone. Invariant 3 (a): a claim goes
 * stale at once only when its claimant's presence really left, so the drain of one instance must
 * not read as every one of its clients leaving (for the peers elsewhere), nor as every peer
 * elsewhere leaving (for its own clients): either would duplicate every request in flight.
 */
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import { until } from "../sync/wait.ts";
import { extraInstance, peer, storedPeer, uniqueRoom, untilAcked, useCluster, when, type Peer } from "./harness.ts";

const env = useCluster({ instances: 1 });

/** Resolves once `p` sees `other`'s replica in its presence. */
const sees = (p: Peer, other: Peer): Promise<void> =>
  until(p.conn.awareness, "change", () => p.conn.awareness.getStates().get(other.doc.clientID)?.sharedFetch !== undefined);

const LEASE = 120_000; // far beyond the test timeout: a takeover here can only come from a presence removal

async function drainScenario(claimantOnDrained: boolean): Promise<void> {
  const cluster = env.cluster();
  const host = env.host();
  const drained = await extraInstance(cluster, "drained");
  const survivor = cluster.urls[0]!;
  const room = uniqueRoom("drain");
  const path = `/${room}/items`;
  const req = { url: host.url(path) };
  const onDrained = peer(cluster, room, [drained.url, survivor], { leaseMs: LEASE });
  const elsewhere = peer(cluster, room, [survivor], { leaseMs: LEASE });
  await Promise.all([onDrained.conn.whenSynced, elsewhere.conn.whenSynced]);
  await Promise.all([sees(onDrained, elsewhere), sees(elsewhere, onDrained)]);
  const [claimant, waiter] = claimantOnDrained ? [onDrained, elsewhere] : [elsewhere, onDrained];

  host.hold = true;
  const fromClaimant = claimant.store.ensure(req);
  fromClaimant.catch(() => {}); // awaited below; only a failed test leaves it to be aborted at cleanup
  await host.whenCount(path, 1);
  await when(waiter.store, req, () => waiter.store.snapshot(req).claim?.replicaId === claimant.store.replicaId);
  const fromWaiter = waiter.store.ensure(req);
  fromWaiter.catch(() => {});

  const stoppedAt = Date.now();
  drained.child.process.kill("SIGTERM");
  expect(await drained.child.exited).toBe(0);
  // The drained instance's client is back through the survivor, and both see each other again:
  // any takeover a removal caused has long been sent by now.
  await until(onDrained.conn.provider, "synced", () => onDrained.conn.url === survivor && onDrained.conn.provider.isSynced);
  await Promise.all([sees(onDrained, elsewhere), sees(elsewhere, onDrained)]);
  expect(host.count(path)).toBe(1);
  // Seen again on reconnecting (≈ 2 s here), not at the others' 15 s presence renewal.
  expect(Date.now() - stoppedAt).toBeLessThan(10_000);

  host.release();
  for (const result of await Promise.all([fromClaimant, fromWaiter])) expect(result).toMatchObject({ status: "success", data: { n: 1 } });
  expect(host.count(path)).toBe(1);
}

describe("an instance stopped with SIGTERM mid-request (rolling deploy): 1 request per key (invariant 3)", () => {
  it("the claimant's instance drains: a peer on another instance does not take its claim over", () => drainScenario(true), 60_000);
  it("a waiter's instance drains: the waiter does not take the claim of a peer elsewhere over", () => drainScenario(false), 60_000);
});

describe("an instance stopped with SIGTERM while its stores are slow", () => {
  it("its clients move to another instance at once, not when it exits: they are served meanwhile", async () => {
    const cluster = env.cluster();
    const drained = await extraInstance(cluster, "slow-drain", { SHUTDOWN_TIMEOUT_MS: "30000" });
    const survivor = cluster.urls[0]!;
    const room = uniqueRoom("slowdrain");
    const a = await storedPeer(cluster, room, [drained.url, survivor]);
    // The room's row held locked (a slow disk, an operator's transaction): the drain's store waits.
    const row = new pg.Client({ connectionString: cluster.postgres.connectionString });
    await row.connect();
    const release = (): Promise<void> =>
      row
        .query("COMMIT")
        .then(() => row.end())
        .catch(() => {});
    onTestFinished(release);
    await row.query("BEGIN");
    await row.query("SELECT data FROM shared_fetch_documents WHERE name = $1 FOR UPDATE", [room]);
    a.map.set("k", "v");
    await untilAcked(a);
    let exited = false;
    void drained.child.exited.then(() => (exited = true));
    drained.child.process.kill("SIGTERM");
    await until(a.conn.provider, "synced", () => a.conn.url === survivor && a.conn.provider.isSynced);
    expect(exited).toBe(false);
    await release();
    expect(await drained.child.exited).toBe(0);
  }, 60_000);
});
