/**
 * A LockManager given as `locks` may throw from `request` instead of returning a rejected promise
 * (a hand-written wrapper, a polyfill that checks its origin first). Such a throw is a refusal like
 * any other: createSharedFetchStore returns a store (it threw the bare SecurityError before, from
 * its replica lock and from the browser id's agreement, which keeps its tentative id), its claims
 * fall back to the settle window, and a claimant of this browser whose lock it may not watch goes
 * stale by its lease (invariant 3) — the watch is asked while a snapshot is read, and nothing may
 * throw into React there (invariant 14's rule). The console says so once.
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

/** A tab's manager whose `request` throws at once for the locks `refuse` names. */
function throwing(locks: FakeLocks, tag: string, refuse: (name: string, mode?: string) => boolean): LockManagerLike {
  const real = locks.forTab(tag);
  return {
    query: () => real.query(),
    request: (name, options, callback) => {
      if (refuse(name, options.mode)) throw new DOMException("The request was denied.", "SecurityError");
      return real.request(name, options, callback);
    },
  };
}

const said = (warn: { mock: { calls: unknown[][] } }) => warn.mock.calls.filter(([m]) => /shared-fetch: locks refused/.test(String(m)));

it("invariant 8: a manager that throws on every request still makes a store, whose claims fall back to the settle window", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const c = cluster(0);
  // No browserId given: the store agrees one with the other tabs through the same manager.
  const a = c.join({ locks: throwing(new FakeLocks(), "a", () => true) });
  await tick(10);
  const first = background(a.ensure({ url: URL_A }));
  await tick(30);
  expect(c.host.calls).toHaveLength(1);
  c.host.calls[0]!.respond(200, "one");
  await expect(until(first)).resolves.toMatchObject({ status: "success", data: "one" });
  expect(said(warn)).toHaveLength(1);
  expect(String(said(warn)[0])).toMatch(/SecurityError/);
});

it("invariant 3: a claimant's lock watch that throws while a snapshot is read lets the lease apply after its crash", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const locks = new FakeLocks();
  const c = cluster(0);
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", leaseMs: 1000 });
  const b = c.join({
    locks: throwing(locks, "b", (name, mode) => name.startsWith("shared-fetch:replica:") && mode === "shared"),
    browserId: "browser-1",
    leaseMs: 1000,
  });
  await tick(10);
  background(a.ensure({ url: URL_A }));
  await tick(50);
  // What a hook reads on render: it must not throw.
  expect(b.snapshot({ url: URL_A })).toMatchObject({ status: "pending", claim: { replicaId: a.replicaId } });
  const waiting = background(b.ensure({ url: URL_A }));
  await tick(50);
  expect(c.host.calls).toHaveLength(1);
  c.crash(a);
  locks.crash("a");
  await tick(1500);
  expect(c.host.calls).toHaveLength(2);
  c.host.calls[1]!.respond(200, "b");
  await expect(until(waiting)).resolves.toMatchObject({ status: "success", data: "b" });
  expect(said(warn)).toHaveLength(1);
});
