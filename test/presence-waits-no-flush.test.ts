/**
 * Presence waits, "a doc whose connections cannot flush" (connectPeers alone, or presence given by
 * hand): a request that nothing here waits for, kept for the key's listeners (a takeover of a dead
 * claimant's work), asked whether another replica waits on it. The grace for a wait on its way
 * ends once the connections have flushed, which is at once when none can: the recheck that end
 * asks for read the key again, which started a new grace, ended at once, and so on. The page hung
 * in an endless chain of microtasks (timers and the request's own answer never ran). Found by the
 * day-long dashboard soak (test/soak/dashboard-day.test.ts). Three replicas on an in-process
 * network, presence linked in a mesh, a fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { linkedPresence } from "./harness/linked-presence.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

/** Stops a chain of more than `limit` microtasks (the test would never end): says whether it ran away. */
function microtaskGuard(limit = 100_000): { ranAway: () => boolean } {
  const queue = globalThis.queueMicrotask;
  let n = 0;
  let ranAway = false;
  vi.spyOn(globalThis, "queueMicrotask").mockImplementation((fn) => {
    if (++n > limit) return void (ranAway = true);
    queue(fn);
  });
  // Counted per timer turn: a chain that lets timers run is no runaway.
  const reset = setInterval(() => (n = 0), 1);
  return { ranAway: () => (clearInterval(reset), ranAway) };
}

describe("presence waits end their grace without a flush to wait for", () => {
  beforeEach(useFakeClock);
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it("a takeover for listeners alone, beside a present replica, with no connection that flushes: no endless recheck, the request completes", async () => {
    const presence = linkedPresence(3);
    const c = cluster(0, { settleMs: 0 });
    const [a, b] = [0, 1, 2].map((i) => c.join({ awareness: presence.all[i] }));
    const req = { url: `${URL_A}/shown` };
    background(a!.ensure(req)); // the host hangs: a's request stays in flight
    await tick(10);
    b!.subscribe(req, () => {}); // b shows the key, asks for nothing
    const guard = microtaskGuard();
    c.crash(a!);
    presence.cut(0); // a crashed: silent, its lease runs out on b's clock
    c.host.auto = () => ({ status: 200, body: "b's", delayMs: 100 });
    await tick(6000); // past a's 5 s lease: b takes the work over for its listener
    await tick(200);
    expect(guard.ranAway()).toBe(false);
    expect(c.host.calls).toHaveLength(2);
    expect(b!.snapshot(req)).toMatchObject({ status: "success", data: "b's" });
  });
});
