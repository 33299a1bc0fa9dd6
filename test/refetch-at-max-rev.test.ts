/**
 * Invariant 14 with cancelRefetch: a peer's records at the revision bound (MAX_REV) leave no
 * revision to claim past them. A refetch there (skipInFlight or not) resolves with the outcome at
 * the bound, as any ask does (DESIGN: `ensure` resolves with the outcome, rejects only on abort or
 * bad input): the request in flight at the bound is joined, not aborted (nothing newer could be
 * sent), and what is recorded there answers at once — never a pending snapshot, never revision NaN.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TABLES } from "../src/internals.ts";
import { MAX_REV } from "../src/core/records.ts";
import { peerWrites } from "./harness/doc-records.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 1000;

describe("a refetch at the revision bound", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("invariant 14: a skipInFlight refetch joins the request in flight at MAX_REV and resolves with its outcome, never with a pending snapshot", async () => {
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
    const refetched = a!.refetch(req, { skipInFlight: true });
    await tick(10);
    expect(c.host.calls.map((call) => call.state)).toEqual(["in-flight"]);
    c.host.calls[0]!.respond(200, "at the bound");
    await expect(until(refetched)).resolves.toEqual({ status: "success", data: "at the bound" });
    expect(a!.snapshot(req)).toEqual({ status: "success", data: "at the bound" });
    expect(c.host.calls).toHaveLength(1);
    expect(a!.malformed()).toEqual([]);
    off();
  });

  for (const [recorded, outcome] of [
    ["a result", { status: "success", data: "at the bound" }],
    ["an error", { status: "error", error: { message: "at the bound", status: 500 } }],
  ] as const)
    for (const skipInFlight of [false, true])
      it(`invariant 14: with ${recorded} recorded at MAX_REV, a refetch (skipInFlight ${skipInFlight}) resolves with it at once, sending nothing`, async () => {
        const c = cluster(1, { leaseMs: LEASE, settleMs: 0 });
        const [a] = c.stores;
        const key = a!.keyOf(req);
        const entry =
          recorded === "a result"
            ? { t: TABLES.results, k: key, v: { rev: MAX_REV, data: "at the bound" }, s: 1 }
            : { t: TABLES.errors, k: key, v: { rev: MAX_REV, message: "at the bound", status: 500 }, s: 1 };
        peerWrites(c.docOf(a!), [entry]);
        await tick();
        await expect(until(a!.refetch(req, { skipInFlight }))).resolves.toMatchObject(outcome);
        expect(c.host.calls).toHaveLength(0);
        expect(a!.malformed()).toEqual([]);
      });
});
