/**
 * A takeover rewrites the stale claim into the new one in one transaction (invariant 4), but when
 * it reaches the old claimant ahead of an earlier update of its writer, Yjs applies its delete and
 * holds the new claim back (pending structs). The claimant still reads its own claim (the lanes
 * keep it: test/takeover-insert-pending.test.ts), yet what it passes on to the replicas that hear
 * the taker only through it, as a sync server or a tab's channel passes on what its doc applied,
 * is the delete alone: there no claim stands while the claimant's request still runs. Pending is
 * truthful there too (invariant 8): the claimant writes its claim again. Real Y.Docs on the test
 * relay (chaos-replicas, CHAOS_SEED=217, shrunk).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStores } from "./harness/relay.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const OTHER = { url: `${URL_A}/1` };
const LEASE = 300;

describe("a takeover whose delete a claimant passes on while Yjs holds its insert back", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pending is truthful (4, 8): a replica that hears the taker only through the claimant shows the key pending while the claimant's request runs", async () => {
    const host = new Host();
    const relay = new Relay();
    const stores = relayedStores(relay, host, ["a", "b", "c"], LEASE);
    const [a, b, c] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const claimant = (s: SharedFetchStoreWithExtras) => internalsOf(s).records.claims.get(a.keyOf(KEY))?.replicaId;
    try {
      background(b.refetch(KEY));
      await tick();
      relay.cut(0, 2); // a and c hear each other only through b
      relay.hold(0, 1); // b's heartbeats and a's writes wait on the link between a and b
      await tick(LEASE); // b sends; a hears nothing of b for a lease
      expect(host.open.map((call) => call.from)).toEqual(["b"]);

      background(a.ensure(OTHER)); // a's first write: its lane, which its later writes build on
      await tick();
      background(a.refetch(KEY)); // b's claim is stale for a: a takes it over, one rewrite
      await tick();
      expect(claimant(a)).toBe("a");

      // The takeover reaches b ahead of a's first write: its delete applies, its insert waits.
      expect(relay.deliver(0, 1, 1)).toBe(true);
      expect(internalsOf(b).records.doc.store.pendingStructs).not.toBeNull();
      await tick(1);
      expect(host.open.filter((call) => call.url === KEY.url).map((call) => call.from)).toContain("b");
      expect(b.snapshot(KEY).status).toBe("pending");
      expect(c.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "b", stale: false } });

      // Everything arrives: b's claim, written again as dispatched, outranks the takeover still in
      // its settle window, which yields to it; b's answer ends the key everywhere, one request.
      relay.healAll();
      await tick(LEASE);
      expect(stores.map(claimant)).toEqual(["b", "b", "b"]);
      for (const s of stores) expect(s.snapshot(KEY).status).toBe("pending");
      host.open.find((call) => call.from === "b" && call.url === KEY.url)!.respond(200, { from: "b" });
      await tick();
      for (const s of stores) expect(s.snapshot(KEY)).toMatchObject({ status: "success", data: { from: "b" } });
      expect(host.calls.filter((call) => call.url === KEY.url).map((call) => call.from)).toEqual(["b"]);
    } finally {
      for (const s of stores) s.destroy();
      relay.destroy();
      host.destroy();
    }
  });
});
