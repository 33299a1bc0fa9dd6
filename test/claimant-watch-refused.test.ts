/**
 * A tab that sees a claim from its own browser watches the claimant's Web Lock instead of a lease:
 * the lock's release is the claimant's death, heard at once. Web Locks may refuse that watch (a
 * broken LockManager given as `locks`, a page being torn down): the claim then goes stale by the
 * lease as any other replica's (invariant 3), so a claimant that crashes is taken over one lease
 * later. Before, the refused watch still counted as watched: no lease applied, and the waiting tab
 * kept the key pending for good after the claimant's crash (invariant 8).
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../sim/fake-locks.ts";
import type { LockManagerLike } from "../src/core/locks.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

beforeEach(useFakeClock);
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

it("invariant 3: a claimant of this browser whose lock the waiter may not watch goes stale by its lease once it crashes", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const locks = new FakeLocks();
  const real = locks.forTab("b");
  const refusing: LockManagerLike = {
    query: () => real.query(),
    request: (name, options, callback) =>
      name.startsWith("shared-fetch:replica:") && options.mode === "shared"
        ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
        : real.request(name, options, callback),
  };
  const c = cluster(0);
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", leaseMs: 1000 });
  const b = c.join({ locks: refusing, browserId: "browser-1", leaseMs: 1000 });
  await tick(10);
  background(a.ensure({ url: URL_A }));
  await tick(50);
  expect(b.claims()[0]![1]).toMatchObject({ replicaId: a.replicaId, browserId: "browser-1" });
  const waiting = background(b.ensure({ url: URL_A }));
  await tick(50);
  expect(c.host.calls).toHaveLength(1);
  c.crash(a);
  locks.crash("a");
  // No heartbeat from a for its lease: b takes the claim over, on its own clock.
  await tick(1500);
  expect(c.host.calls).toHaveLength(2);
  c.host.calls[1]!.respond(200, "b");
  await expect(until(waiting)).resolves.toMatchObject({ status: "success", data: "b" });
  const said = warn.mock.calls.filter(([m]) => /shared-fetch: locks refused/.test(String(m)));
  expect(said).toHaveLength(1);
  expect(String(said[0])).toMatch(/SecurityError/);
});
