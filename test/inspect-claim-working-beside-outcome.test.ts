/**
 * The devtools read the store's own judgement of a claim (inspect(): "the same judgement the
 * engine acts on"). A live claim whose request still runs beside an outcome recorded at or above
 * its revision is pending work for the store's snapshot (invariant 8): one below a newer
 * revision's error (pending-below-newer-error), one that outran an older result of its own
 * revision (freshness.ts, outran). inspect() called both "finished" (a leftover at or below the
 * recorded revision): the Keys tab showed the key "error" or "success" with a "finished" claim and
 * no countdown to staleness while every pane of the app showed it fetching, the claimant named.
 * Once the claimant goes silent for its lease, the claim is a leftover again, as the snapshot says.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { statusOf } from "../devtools/build.ts";
import { createSharedFetchStore, type SharedFetchStoreWithExtras } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { Network } from "../sim/network.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 300;
const HOUR = 3_600_000;

/** The devtools' status of the key on `s`, and whether it reads the claim as finished. */
function inspected(s: SharedFetchStoreWithExtras) {
  const k = s.inspect().keys.find((row) => row.claim)!;
  return { status: statusOf(k.claim, k.result?.rev ?? 0, k.error?.rev ?? 0), finished: k.claim!.finished };
}

describe("inspect(): a claim still working beside a recorded outcome is not finished", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a request below a newer revision's error: pending in the devtools as in the snapshot, until the claimant goes silent", async () => {
    const net = new Network(0);
    const host = new Host();
    const docs = [1, 2].map((clientID) => Object.assign(new Y.Doc(), { clientID }));
    const [a, b] = ["a", "b"].map((name, i) => {
      net.add(docs[i]);
      return createSharedFetchStore({
        doc: docs[i]!,
        replicaId: name,
        fetch: host.fetchAs(name),
        leaseMs: LEASE,
        settleMs: 20,
        locks: null,
      });
    }) as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    a.subscribe(req, () => {});
    b.subscribe(req, () => {});
    background(a.ensure(req));
    await tick(50);
    net.isolate(docs[1]!);
    background(b.refetch(req, { skipInFlight: true })); // b's revision 2, once a is silent to it
    await tick(LEASE + 50);
    host.calls[1]!.respond(500, "no");
    await tick();
    net.heal();
    await tick();
    expect(b.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: "a", stale: false } });
    expect(inspected(b)).toEqual({ status: "pending", finished: false });
    net.remove(docs[0]!); // a crashes
    await tick(LEASE + 50);
    expect(b.snapshot(req).status).toBe("error");
    expect(inspected(b)).toEqual({ status: "error", finished: true });
    a.destroy();
    b.destroy();
  });

  it("a request that outran an older result of its own revision: pending in the devtools as in the snapshot", async () => {
    const c = cluster(3, { settleMs: 20, leaseMs: LEASE, locks: null });
    const [a, b, device] = c.stores;
    c.net.isolate(c.docOf(device!));
    c.host.auto = () => ({ status: 200, body: { n: "an hour ago" } });
    await until(device!.refetch(req)); // the device's revision 1
    await tick(HOUR);
    c.host.auto = undefined;
    background(a!.ensure(req)); // a's revision 1, sent an hour later
    await tick(50);
    c.net.heal(c.docOf(device!));
    await tick(50);
    expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
    expect(inspected(b!)).toEqual({ status: "pending", finished: false });
  });
});
