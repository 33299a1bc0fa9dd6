/**
 * Invariant 11 and invariant 3a on a first visit: tabs opened at once start under tentative
 * browser ids and agree on one a few ms later (browser-id.ts). A tab that waits on the claim of a
 * tab still under its tentative id is taken for another device's; once the claimant adopts the
 * agreed id, the waiter is of its browser and is watched by its Web Lock: its crash is known at
 * once, not after its presence times out (30 s), all that time holding a request nobody wants.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

/** A lock `tag` holds until the returned function is called. */
function hold(locks: FakeLocks, tag: string, name: string): () => void {
  let release = () => {};
  void locks.forTab(tag).request(name, { mode: "exclusive" }, () => new Promise<void>((r) => (release = r)));
  return () => release();
}

describe("a waiter found of the claimant's browser once their ids agree is watched by its Web Lock (invariant 11, invariant 3a)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the claimant adopts the agreed id after the waiter's wait arrived; the waiter crashes: the request is aborted at once", async () => {
    const locks = new FakeLocks();
    // A tab that settled the id "agreed" holds its id lock, and holds the agreement lock a moment
    // longer: A, opened meanwhile, claims under its tentative id and adopts "agreed" later.
    const idLock = hold(locks, "first", "shared-fetch:browser-id:agreed");
    const agreement = hold(locks, "first", "shared-fetch:browser-id");
    const presence = linkedPresence(2);
    const c = cluster(0);
    const a = c.join({ locks: locks.forTab("a"), awareness: presence.all[0] });
    const b = c.join({ locks: locks.forTab("b"), browserId: "agreed", awareness: presence.all[1] });
    await tick();
    const asked = new AbortController();
    background(a.ensure({ url: URL_A }, { signal: asked.signal }));
    await tick(100);
    expect(c.host.calls).toHaveLength(1);
    background(b.ensure({ url: URL_A }));
    await tick(100);
    expect(presence.all[0]!.getStates().get(presence.all[1]!.clientID)?.sharedFetch?.waits).toBeDefined();
    // A learns the id its browser agreed on, B's waits already heard under it.
    agreement();
    await tick(10);
    idLock(); // FakeLocks has no shared mode: A's hold of the id lock must not queue for good
    await tick(100);
    expect(a.claims()[0]![1].browserId).toBe("agreed");
    asked.abort();
    await tick(100);
    expect(c.host.calls[0]!.aborted).toBe(false);
    // B dies without a goodbye: its doc and presence go silent, the browser frees its locks.
    c.crash(b);
    presence.cut(1);
    locks.crash("b");
    await tick(100);
    expect(c.host.calls[0]!.aborted).toBe(true);
    expect(c.host.calls).toHaveLength(1);
  });
});
