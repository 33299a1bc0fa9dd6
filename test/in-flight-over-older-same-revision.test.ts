/**
 * The outran rule (freshness.ts) when the other side of a partition numbered its older data at
 * the very revision this side's request runs at (both sides made as many revisions while cut off).
 * Within one revision the later request's outcome wins (doc-records.ts, byAt): the request is not
 * aborted as superseded by the older record, and whoever waits on it, here or on a replica that
 * joined its claim, gets its newer result, recorded at that revision.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openDocRecords } from "../src/core/doc-records.ts";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

async function partitioned(outcome: "result" | "error") {
  const c = cluster(3, { settleMs: 0 });
  const [a, joiner, device] = c.stores;
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: `old ${++n}` } });
  c.net.isolate(c.docOf(device!));
  for (let i = 0; i < 2; i++) await until(device!.refetch(R)); // the device's revisions 1 and 2
  if (outcome === "error") c.host.auto = () => ({ status: 503, body: "down" });
  await until(device!.refetch(R)); // its revision 3
  await tick(HOUR);
  c.host.auto = () => ({ status: 200, body: { n: "a minute ago" } });
  for (let i = 0; i < 2; i++) await until(a!.refetch(R)); // this side's revisions 1 and 2
  await tick(60_000);
  c.host.auto = undefined;
  const mine = background(a!.refetch(R)); // revision 3 here, in flight
  await tick(10);
  const joined = background(joiner!.refetch(R));
  await tick(10);
  const call = c.host.calls.at(-1)!;
  expect(call.state).toBe("in-flight");
  const answered: unknown[] = [];
  for (const p of [mine, joined]) void p.then((s) => answered.push(s));
  c.net.heal(c.docOf(device!));
  await tick(10);
  return { c, stores: [a!, joiner!, device!], mine, joined, call, answered };
}

describe("outran at the same revision: a request in flight is not superseded by the other side's older outcome of its revision", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("an hour-old result at the revision our refetch runs at: the request goes on, its claimant and the replica that joined it get the newer result", async () => {
    const { c, stores, mine, joined, call, answered } = await partitioned("result");
    expect(call.aborted).toBe(false);
    expect(answered).toEqual([]);
    call.respond(200, { n: "newest" });
    expect((await until(mine, 10, 5_000)).data).toEqual({ n: "newest" });
    expect((await until(joined, 10, 5_000)).data).toEqual({ n: "newest" });
    await tick(10);
    for (const s of stores) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: "newest" } });
      expect(s.resultInfo(R)!.rev).toBe(3);
    }
    expect(c.host.calls).toHaveLength(6);
  });

  it("an hour-old error at that revision answers no one: the newer result replaces it", async () => {
    const { stores, mine, joined, call, answered } = await partitioned("error");
    expect(call.aborted).toBe(false);
    expect(answered).toEqual([]);
    call.respond(200, { n: "newest" });
    expect(await until(mine, 10, 5_000)).toEqual({ status: "success", data: { n: "newest" } });
    expect(await until(joined, 10, 5_000)).toEqual({ status: "success", data: { n: "newest" } });
    await tick(10);
    for (const s of stores) expect(s.snapshot(R)).toEqual({ status: "success", data: { n: "newest" } });
  });

  it("invariant 14: a claim whose `takeover` is not true is malformed: ignored and listed", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const peer = openDocRecords(c.docOf(a!), () => null);
    const claim = { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 60_000, takeover: "yes" };
    c.docOf(a!).transact(() => peer.claims.set(a!.keyOf(R), claim as never));
    await tick(10);
    expect(a!.claims()).toEqual([]);
    expect(a!.malformed().map((m) => m.reason)).toContain("claim.takeover is not true");
    peer.destroy();
  });
});
