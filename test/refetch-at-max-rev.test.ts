/**
 * Invariant 14 with cancelRefetch: a peer's records at the revision bound (MAX_REV) leave no
 * revision to claim past the request in flight there. A skipInFlight refetch asked on its replica
 * still aborts that request, and then resolves with what is recorded (nothing can record a newer
 * revision), never claiming a revision that is not a number (the listener's work goes on at the bound).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TABLES } from "../src/internals.ts";
import { MAX_REV } from "../src/core/records.ts";
import { peerWrites } from "./harness/doc-records.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 1000;

describe("a skipInFlight refetch past a request at the revision bound", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("invariant 14: the request at MAX_REV is aborted, the refetch resolves with the recorded result, and the listener's work is sent again at MAX_REV, never at NaN", async () => {
    const c = cluster(1, { leaseMs: LEASE, settleMs: 0 });
    const [a] = c.stores;
    const key = a!.keyOf(req);
    peerWrites(c.docOf(a!), [
      { t: TABLES.results, k: key, v: { rev: MAX_REV - 1, data: "below the bound" }, s: 1 },
      { t: TABLES.claims, k: key, v: { replicaId: "ghost", nonce: "n", rev: MAX_REV, leaseMs: LEASE, abandoned: true }, s: 1 },
    ]);
    await tick();
    const off = a!.subscribe(req, () => {}); // shown: the abandoned work is taken over for the listener
    await tick(10);
    expect(c.host.calls.map((call) => call.state)).toEqual(["in-flight"]);
    await expect(until(a!.refetch(req, { skipInFlight: true }))).resolves.toMatchObject({ data: "below the bound" });
    await tick(10);
    // The work the listener took over is sent again at the bound, and its answer recorded there.
    expect(c.host.calls.map((call) => call.state)).toEqual(["aborted", "in-flight"]);
    c.host.calls[1]!.respond(200, "at the bound");
    await tick(10);
    expect(a!.snapshot(req)).toEqual({ status: "success", data: "at the bound" });
    expect(a!.malformed()).toEqual([]);
    off();
  });
});
