/**
 * A replica that loads the doc after a takeover never saw the claim the taker replaced. When it
 * hears the replaced claimant, still running that revision behind a link that holds its updates,
 * and never the taker, it must not take the claim over in turn: a third request while the first
 * still runs (invariants 3 and 4, one live claim per key). The takeover names the claim it replaced
 * (`replaced`), so the replaced claimant's beats for it vouch for the revision's work here too, as
 * they do on a replica that saw both claims (test/running-claim-taken-over-behind-hold.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStore, relayedStores } from "./harness/relay.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const LEASE = 300;

describe("a takeover seen by a replica that loads the doc after it", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("one live claim per key: a late replica that hears the replaced claimant but not the taker waits", async () => {
    const host = new Host();
    const relay = new Relay();
    const stores = relayedStores(relay, host, ["a", "b"], LEASE);
    const [a, b] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const claimOf = (s: SharedFetchStoreWithExtras) => internalsOf(s).records.claims.get(a.keyOf(KEY));
    try {
      background(a.ensure(KEY));
      background(b.ensure(KEY)); // b joins a's claim
      relay.hold(0, 1); // a's heartbeats wait on the link to b
      await tick(LEASE); // a sends; b hears nothing of a for a lease and takes its claim over
      expect(host.open.map((call) => call.from)).toEqual(["a"]);
      const lost = claimOf(a)!;
      relay.deliver(1, 0, 0); // b's takeover reaches a, which still runs the claim it lost
      await tick();
      expect(claimOf(a)).toMatchObject({ replicaId: "b", rev: lost.rev, replaced: lost.nonce });

      // c loads the doc now, from a: b's claim stands in it; b is never heard there again.
      const c = relayedStore(relay, host, "c", 2, LEASE);
      stores.push(c);
      relay.cut(1, 2);
      expect(claimOf(c)?.replicaId).toBe("b");
      background(c.ensure(KEY)); // c joins the claim standing: b's
      await tick(3 * LEASE); // b sends behind the held link; c hears a's heartbeats and waits
      expect(host.open.map((call) => call.from)).toEqual(["a", "b"]);
      expect(c.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "b", stale: false } });

      relay.healAll();
      host.open.find((call) => call.from === "a")!.respond(200, { from: "a" });
      await tick();
      for (const s of stores) expect(s.snapshot(KEY)).toMatchObject({ status: "success", data: { from: "a" } });
      expect(host.calls).toHaveLength(2);
    } finally {
      for (const s of stores) s.destroy();
      relay.destroy();
      host.destroy();
    }
  });
});
