/**
 * Invariant 11 at a partition's heal: waits name a key and a revision, not a claimant. Two
 * replicas that claimed one revision while cut off from each other both sent it; healed, the doc
 * keeps one claim, and a replica waiting on that revision waits on that one. The replica whose
 * claim lost, its own ask ended, aborts its request (it counted the waiter as its own and kept a
 * duplicate going to its end); the standing one goes on and answers the waiter, nothing sent again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { internalsOf } from "../src/internals.ts";
import { linkedAwareness } from "./devtools/awareness.ts";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };

describe("a duplicate sent during a partition is not counted as awaited after the heal (invariant 11)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the replica whose claim lost aborts its request once its own ask ends; the standing one answers the waiter, none sent again", async () => {
    const links = linkedAwareness(3);
    const c = cluster(0, { settleMs: 0 });
    const [a, b, joiner] = ["r-a", "r-b", "r-joiner"].map((replicaId, i) => c.join({ replicaId, awareness: links.all[i]! }));
    c.net.isolate(c.docOf(b!));
    const asks = [new AbortController(), new AbortController()];
    for (const [i, s] of [a!, b!].entries()) s.ensure(R, { signal: asks[i]!.signal }).catch(() => {});
    await tick(50);
    expect(c.host.calls).toHaveLength(2); // each side claimed revision 1 and sent it
    const waiting = joiner!.ensure(R);
    await tick(10);
    c.net.heal(c.docOf(b!));
    await tick(50);
    const standing = internalsOf(a!).records.claims.get(a!.keyOf(R))!.replicaId;
    const [winner, loser] = standing === "r-a" ? [0, 1] : [1, 0];
    for (const ask of asks) ask.abort();
    await tick(300); // past the tabs' flush grace
    expect(c.host.calls[winner]!.aborted).toBe(false);
    expect(c.host.calls[loser]!.aborted).toBe(true);
    c.host.calls[winner]!.respond(200, { by: "winner" });
    expect((await until(waiting)).data).toEqual({ by: "winner" });
    expect(c.host.calls).toHaveLength(2);
    links.destroy();
  });
});
