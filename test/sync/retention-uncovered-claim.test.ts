/**
 * Retention keeps a claim in flight only while its claimant's heartbeat vouches for it (its
 * `nonces`, as liveness reads them): a claim under a live replica's id that no request of it runs
 * (a forged one, or one a program's eviction left behind) is swept after the window, even while
 * that replica heartbeats for other work.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { internalsOf } from "../../src/internals.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const HOUR = 3600_000;
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

it("a claim the claimant's heartbeat does not vouch for is swept after the window", async () => {
  const c = cluster(2);
  const [a, b] = c.stores;
  const hung = { url: `${URL_A}/hung` };
  const leftover = { url: `${URL_A}/leftover` };
  const key = a!.keyOf(leftover);
  // A claim under a's id that no request of a runs (liveness: not covered by a's heartbeat).
  const { records } = internalsOf(b!);
  records.doc.transact(() => records.claims.set(key, { replicaId: a!.replicaId, nonce: "not-running", rev: 1, leaseMs: 5000 }));
  // a has some other request in flight (a hung host) and beats for it.
  background(a!.ensure(hung, { leaseMs: 9 * 60_000 }));
  await until(c.host.whenCalls(1));
  await tick(26 * HOUR);
  c.host.auto = () => ({ status: 200, body: "other" });
  await until(b!.ensure({ url: `${URL_A}/other` })); // b sweeps what it saw unasked for 24 h
  await tick(100);
  expect(records.claims.get(key)).toBeUndefined();
});
