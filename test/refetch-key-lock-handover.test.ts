/**
 * cancelRefetch in a tab: the request a refetch replaces passes the key's Web Lock to the one that
 * replaces it, held or still asked for, so no other tab of the browser holds the key in between.
 * A tab waiting on the standing claim queues on that lock (KeyLockStandby): handed the lock in a
 * gap, it would hold it while it waits on the claim, and the newer request would wait for the
 * lock behind it, for ever.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../sim/fake-locks.ts";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const states = (calls: { state: string }[]) => calls.map((call) => call.state);

/** Whether a tab holds the key's lock now (its name ends with the key: scoped by browser and doc). */
async function keyLockHeld(locks: FakeLocks, key: string): Promise<boolean> {
  const { held = [] } = await locks.forTab("probe").query();
  return held.some(({ name = "" }) => name.startsWith("shared-fetch:key:") && name.endsWith(`:${key}`));
}

async function tabs(options = {}) {
  const locks = new FakeLocks();
  const c = cluster(0);
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", settleMs: 0, ...options });
  const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1", settleMs: 0, ...options });
  return { locks, c, a, b };
}

describe("a refetch hands the key's lock to the request that replaces the one in flight", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("two refetches in one task (two panes), another tab queued on the key: the lock never leaves the tab and the newest request is sent", async () => {
    const { c, a, b } = await tabs();
    await tick();
    const first = background(a.ensure(R));
    await tick(10);
    const joined = background(b.ensure(R)); // B waits on A's claim, queued on the key's lock
    await tick(10);
    expect(states(c.host.calls)).toEqual(["in-flight"]);
    const one = background(a.refetch(R, { skipInFlight: true }));
    const two = background(a.refetch(R, { skipInFlight: true }));
    await tick(10);
    expect(states(c.host.calls)).toEqual(["aborted", "in-flight"]);
    expect(a.claims()[0]![1]).toMatchObject({ replicaId: a.replicaId, rev: 3 });
    c.host.calls[1]!.respond(200, "newest");
    for (const p of [first, one, two, joined]) expect((await until(p)).data).toBe("newest");
    expect(c.host.calls).toHaveLength(2);
  });

  it("a request whose key lock came from the standby (asked for while the store started) keeps it for the refetch's request", async () => {
    const { locks, c, a } = await tabs();
    const key = a.keyOf(R);
    background(a.ensure(R)); // asked while starting: the key's lock is queued beside the sync
    await tick(10);
    expect(states(c.host.calls)).toEqual(["in-flight"]);
    expect(await keyLockHeld(locks, key)).toBe(true);
    background(a.refetch(R, { skipInFlight: true }));
    await tick(10);
    expect(states(c.host.calls)).toEqual(["aborted", "in-flight"]);
    expect(await keyLockHeld(locks, key)).toBe(true);
    c.host.calls[1]!.respond(200, "done");
    await tick(10);
    expect(await keyLockHeld(locks, key)).toBe(false);
  });

  for (const when of ["once the new request was sent", "in the refetch's task (its lock not granted yet)"] as const)
    it(`a refetch then every asker gone ${when}: the request is aborted, the claim released and the key's lock let go`, async () => {
      const { locks, c, a } = await tabs();
      const key = a.keyOf(R);
      await tick();
      const asks = [new AbortController(), new AbortController()];
      background(a.ensure(R, { signal: asks[0]!.signal }));
      await tick(10);
      background(a.refetch(R, { skipInFlight: true, signal: asks[1]!.signal }));
      if (when.startsWith("once")) await tick(10);
      for (const ask of asks) ask.abort();
      await tick(10);
      expect(states(c.host.calls)).toEqual(when.startsWith("once") ? ["aborted", "aborted"] : ["aborted"]);
      expect(a.claims()).toEqual([]);
      expect(a.snapshot(R).status).toBe("idle");
      expect(await keyLockHeld(locks, key)).toBe(false);
    });
});
