/**
 * A replica whose link to a working claimant holds its updates back hears no heartbeat for a lease
 * and takes the claim over (DESIGN.md: no replica can tell a held link from a dead claimant). The
 * takeover reaches the claimant, and through it a third replica in sync with the claimant all
 * along. That replica, cut off from the taker, hears no heartbeat of it either; it must not take
 * over in turn, a third request while the claimant's still runs (invariants 3 and 4: a live
 * claimant is never taken over): the claimant's heartbeats still name the claim it lost, so the
 * work of that revision lives (liveness.ts; test/liveness-taken-over-claimant.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStores } from "./harness/relay.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const LEASE = 300;

describe("a running claimant's claim taken over by a replica its updates do not reach", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("one live claim per key: a replica that hears the claimant but not the taker waits instead of taking over", async () => {
    const host = new Host();
    const relay = new Relay();
    const stores = relayedStores(relay, host, ["a", "b", "c"], LEASE);
    const [a, b, c] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const claimant = (s: SharedFetchStoreWithExtras) => internalsOf(s).records.claims.get(a.keyOf(KEY))?.replicaId;
    try {
      background(a.ensure(KEY));
      background(b.ensure(KEY)); // b joins a's claim
      relay.cut(1, 2);
      relay.hold(0, 1); // a's heartbeats wait on the link to b
      await tick(LEASE); // a sends; b hears nothing of a for a lease and takes its claim over
      expect(host.open.map((call) => call.from)).toEqual(["a"]);
      expect(claimant(b)).toBe("b");

      // b's takeover reaches a, and through a, c.
      relay.deliver(1, 0, 0);
      await tick();
      expect([claimant(a), claimant(c)]).toEqual(["b", "b"]);

      background(c.refetch(KEY)); // c joins the claim standing: b's
      await tick(3 * LEASE); // b sends behind the held link; c hears a's heartbeats and waits
      expect(host.open.map((call) => call.from)).toEqual(["a", "b"]);
      expect(c.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "b", stale: false } });

      relay.healAll();
      host.open.find((call) => call.from === "a")!.respond(200, { from: "a" });
      await tick();
      for (const s of [a, b, c]) expect(s.snapshot(KEY)).toMatchObject({ status: "success", data: { from: "a" } });
      expect(host.calls).toHaveLength(2);
    } finally {
      for (const s of stores) s.destroy();
      relay.destroy();
      host.destroy();
    }
  });
});
