/**
 * A replica cut off from a claimant that still works takes its claim over (it heard no heartbeat
 * for a lease), fails and lets its claim go with the error it records. Healed, the doc holds no
 * claim at all, yet the original claimant's request still runs, and its result, when it comes,
 * replaces that error (invariant 7). A third replica, in sync with the claimant all along, must not
 * show "error" as if nobody worked on the key: pending is truthful across replicas (invariant 8).
 * The claimant sees its claim gone while its request runs and writes it again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { Host } from "../sim/host.ts";
import { Relay, relayedStores } from "./harness/relay.ts";
import { background, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

const KEY = { url: `${URL_A}/0` };
const LEASE = 300;

describe("a running claimant's claim dropped by a takeover made across a partition", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("pending is truthful across replicas: the claimant writes its claim again, and its result replaces the cut-off replica's error", async () => {
    const host = new Host();
    const relay = new Relay();
    const stores = relayedStores(relay, host, ["a", "b", "c"], LEASE);
    const [a, b, c] = stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    try {
      // a and b show the key (a pane each); c asks for it too.
      for (const s of [a, b]) s.subscribe(KEY, () => {});
      background(a.ensure(KEY));
      background(c.ensure(KEY)); // c joins a's claim
      relay.cut(0, 2);
      relay.cut(1, 2);
      await tick(3 * LEASE); // a sends; c hears no heartbeat of a, takes its claim over and sends
      expect(host.open.map((call) => call.from)).toEqual(["a", "c"]);
      host.open.find((call) => call.from === "c")!.respond(500, "no");
      await tick();
      expect(c.snapshot(KEY).status).toBe("error");

      relay.healAll();
      await tick();
      expect(b.snapshot(KEY)).toMatchObject({ status: "pending", claim: { replicaId: "a" } });
      expect(internalsOf(b).records.claims.get(a.keyOf(KEY))).toMatchObject({ replicaId: "a" });

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
