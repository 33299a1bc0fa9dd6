// @vitest-environment jsdom
/**
 * A page hidden and shown again lets its lifetime Web Lock go and asks for it again (page-lifecycle.ts).
 * The Web Locks spec grants the new request (its callback queued as a task) before it resolves the
 * old request's promise (a task queued behind it): the old request's end then comes after the new
 * grant. The flag that says "this replica holds its lock" must end true all the same, or the page's
 * claims stop naming its browser and a crash of it is found only after a lease (invariant 3a).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cluster, crashFoundByLock, tick, useFakeClock } from "./harness/replicas.ts";
import { SpecOrderLocks } from "../sim/spec-order-locks.ts";
import { lockName, ReplicaLocks } from "../src/core/locks.ts";

/** What the spec's lock manager says of the replica's own lock, beside the replica's flag. */
function lockState(manager: SpecOrderLocks, locks: ReplicaLocks, id: string) {
  return { flag: locks.held, lock: manager.heldBy(id).includes(lockName(id)) };
}

describe("the replica lock's held flag across a hide and a show (spec-ordered lock manager)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("hidden and shown in one task while the lock is held: the old request ends after the new grant, the flag ends held", async () => {
    const manager = new SpecOrderLocks();
    const locks = new ReplicaLocks(manager.forTab("a"), "a", () => {});
    locks.hold();
    await tick(10);
    expect(lockState(manager, locks, "a")).toEqual({ flag: true, lock: true });
    locks.drop();
    locks.hold();
    expect(locks.held).toBe(false); // let go now: the page's claims stop naming its browser
    await tick(10);
    expect(lockState(manager, locks, "a")).toEqual({ flag: true, lock: true });
    await locks.ready;
  });

  it("hidden and shown in one task before the first grant: the flag ends held, the new request's", async () => {
    const manager = new SpecOrderLocks();
    const locks = new ReplicaLocks(manager.forTab("a"), "a", () => {});
    locks.hold();
    locks.drop();
    locks.hold();
    await tick(10);
    expect(lockState(manager, locks, "a")).toEqual({ flag: true, lock: true });
  });

  it("hidden for good (no show): the flag and the lock both end let go, also when the grant came after the hide", async () => {
    const manager = new SpecOrderLocks();
    const early = new ReplicaLocks(manager.forTab("early"), "early", () => {});
    early.hold();
    early.drop();
    const late = new ReplicaLocks(manager.forTab("late"), "late", () => {});
    late.hold();
    await tick(10);
    late.drop();
    await tick(10);
    expect(lockState(manager, early, "early")).toEqual({ flag: false, lock: false });
    expect(lockState(manager, late, "late")).toEqual({ flag: false, lock: false });
  });

  it("a tab frozen and resumed in one task still names its browser in its claims: its crash is found by its lock, not after a lease", async () => {
    const manager = new SpecOrderLocks();
    const c = cluster(0);
    const a = c.join({ locks: manager.forTab("a"), browserId: "browser-1" });
    await tick(10);
    // Both stores would live in this one jsdom window: b joins after the events, as another page.
    document.dispatchEvent(new Event("freeze"));
    document.dispatchEvent(new Event("resume"));
    await tick(10);
    const b = c.join({ locks: manager.forTab("b"), browserId: "browser-1" }, c.docOf(a));
    await tick(10);
    await crashFoundByLock(c, a, b, () => manager.crash("a"));
    c.destroy();
  });
});
