/**
 * A claim written in a batch (the second write of a tick, a microtask after the decision) replaced
 * whatever stood for its key when it was written, even a claim of a newer revision another replica
 * wrote in between. Here a replica that waited on a claimant for two keys takes both over when the
 * claimant's store is destroyed, while a third replica, which asked past the claimant's revision of
 * one key, claims the next revision of it in the same tick: the takeover's batched write deleted
 * that claim, and the third replica sent its request with no claim of its own standing (invariant 4),
 * beside the takeover's request, which no one should have sent (one live claim per key).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStores } from "./harness/relay.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const K0 = { url: `${URL_A}/0` };
const K1 = { url: `${URL_A}/1` };
const LEASE = 300;

describe("a batched claim write and a newer revision's claim written before it", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("invariant 4: the batched takeover leaves the newer claim standing and yields to it", async () => {
    const host = new Host();
    const relay = new Relay();
    const stores = relayedStores(relay, host, ["a", "b", "c"], LEASE);
    const [a, b, c] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const claimOf = (s: SharedFetchStoreWithExtras, req: { url: string }) => internalsOf(s).records.claims.get(a.keyOf(req));
    try {
      const asks = [
        () => a.refetch(K1, { skipInFlight: true }),
        () => a.ensure(K0),
        () => b.refetch(K1), // b joins a's claims
        () => b.ensure(K0, { maxAgeMs: LEASE }),
        () => c.refetch(K1, { skipInFlight: true }), // c asks past a's revision 1 of K1: it waits
      ];
      // Every replica reads both keys (a panel listing them), K0 first: b takes K0 over with the
      // tick's first write, at once, and K1 with its second, batched.
      const read = () => stores.forEach((s) => [K0, K1].forEach((req) => s.snapshot(req)));
      read();
      for (const ask of asks) {
        background(ask());
        await tick();
        read();
      }
      expect(host.calls).toEqual([]);

      a.destroy(); // a releases its claims: b takes both over, c claims K1's revision 2
      await tick();
      for (const s of [b, c]) expect(claimOf(s, K1)).toMatchObject({ replicaId: "c", rev: 2 });

      await tick(3 * LEASE);
      expect(host.calls.map((call) => `${call.from} ${call.url.slice(-1)}`).sort()).toEqual(["b 0", "c 1"]);
    } finally {
      for (const s of stores) s.destroy();
      relay.destroy();
      host.destroy();
    }
  });
  it("a takeover of a claim of its own revision is still written: the ask after a crashed claimant's is answered", async () => {
    const host = new Host();
    const relay = new Relay();
    const [a, b] = relayedStores(relay, host, ["a", "b"], LEASE) as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    try {
      background(a.ensure(K0, { maxAgeMs: LEASE }));
      await tick();
      const asked = new AbortController();
      background(b.ensure(K0, { signal: asked.signal }));
      await tick();
      relay.cut(0, 1);
      await tick(3 * LEASE); // both send: b took a's claim over
      asked.abort();
      await tick();
      relay.reconnect(0, 1);
      await tick();
      internalsOf(a).dev.crash();
      relay.remove(0);
      await tick();
      let answered = false;
      b.ensure(K0).then(
        () => (answered = true),
        () => {},
      );
      host.auto = (call) => ({ status: 200, body: { from: call.from } });
      for (const call of host.open) call.respond(200, { from: call.from });
      await tick(4 * LEASE);
      expect(answered).toBe(true);
    } finally {
      a.destroy();
      b.destroy();
      relay.destroy();
      host.destroy();
    }
  });
});
