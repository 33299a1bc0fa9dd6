/**
 * The outran rule (freshness.ts) for a replica with no request of its own: it waits on another
 * replica's claim, and the other side of a partition brings a higher revision holding data read
 * before that claim's request was sent. The claimant's request goes on and its result is recorded
 * at that revision; the joiner waits for it, as the claimant's own waiters do, rather than resolve
 * with the older data. The claim carries the claimant's time of writing (`at`), no later than its
 * request was sent.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";
import { openDocRecords } from "../src/core/doc-records.ts";

const R = { url };
const HOUR = 3_600_000;

function setUp() {
  const c = cluster(3, { settleMs: 0 });
  const [a, joiner, device] = c.stores;
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: `old ${++n}` } });
  c.net.isolate(c.docOf(device!));
  return { c, a: a!, joiner: joiner!, device: device! };
}

describe("outran for a joiner: a replica waiting on another's claim is not answered by older data at a higher revision", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a device reconnects with an hour-old result at revision 5 while this side's revision-4 refetch runs: the replica that joined it resolves with the newer result", async () => {
    const { c, a, joiner, device } = setUp();
    for (let i = 0; i < 5; i++) await until(device.refetch(R)); // the device's revisions 1 to 5
    await tick(HOUR);
    c.host.auto = () => ({ status: 200, body: { n: "a minute ago" } });
    for (let i = 0; i < 3; i++) await until(a.refetch(R)); // this side's revisions 1 to 3
    await tick(60_000);
    c.host.auto = undefined;
    const mine = background(a.refetch(R)); // revision 4, in flight
    await tick(10);
    const joined = background(joiner.refetch(R));
    await tick(10);
    const call = c.host.calls.at(-1)!;
    expect(call.state).toBe("in-flight");
    let answered: unknown;
    void joined.then((s) => (answered = s.data));
    c.net.heal(c.docOf(device));
    await tick(10);
    expect(call.aborted).toBe(false);
    expect(answered).toBeUndefined();
    call.respond(200, { n: "newest" });
    expect((await until(joined, 10, 5_000)).data).toEqual({ n: "newest" });
    expect((await until(mine, 10, 5_000)).data).toEqual({ n: "newest" });
    await tick(10);
    for (const s of [a, joiner, device]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: "newest" } });
      expect(s.resultInfo(R)!.rev).toBe(5);
    }
    expect(c.host.calls).toHaveLength(9);
  });

  it("a joiner of a first request: the other side's older revisions do not answer its ensure, the claimant's result does", async () => {
    const { c, a, joiner, device } = setUp();
    for (let i = 0; i < 5; i++) await until(device.refetch(R));
    await tick(HOUR);
    c.host.auto = undefined;
    const mine = background(a.ensure(R)); // revision 1 here
    await tick(10);
    const joined = background(joiner.ensure(R));
    await tick(10);
    c.net.heal(c.docOf(device));
    await tick(10);
    c.host.calls.at(-1)!.respond(200, { n: "newer" });
    expect((await until(joined, 10, 5_000)).data).toEqual({ n: "newer" });
    expect((await until(mine, 10, 5_000)).data).toEqual({ n: "newer" });
  });

  it("the claimant crashes after the heal: the joiner takes its claim over and shows its own, newer result", async () => {
    const { c, a, joiner, device } = setUp();
    for (let i = 0; i < 5; i++) await until(device.refetch(R));
    await tick(HOUR);
    c.host.auto = undefined;
    background(a.ensure(R));
    await tick(10);
    const joined = background(joiner.ensure(R));
    await tick(10);
    c.net.heal(c.docOf(device));
    await tick(10);
    c.crash(a);
    c.host.auto = () => ({ status: 200, body: { n: "taken over" } });
    expect((await until(joined, 100, 60_000)).data).toEqual({ n: "taken over" });
    expect(joiner.resultInfo(R)!.rev).toBe(5);
  });

  it("a higher revision holding data read after the claim was written still answers the joiner at once", async () => {
    const { c, a, joiner, device } = setUp();
    c.host.auto = undefined;
    background(a.ensure(R)); // revision 1 here, sent first
    await tick(10);
    const joined = background(joiner.ensure(R));
    await tick(60_000);
    c.host.auto = () => ({ status: 200, body: { n: "later" } });
    for (let i = 0; i < 2; i++) await until(device.refetch(R));
    c.net.heal(c.docOf(device));
    expect((await until(joined, 10, 5_000)).data).toEqual({ n: "later" });
  });

  it("a claim written by an older version (no `at`) is read as before: its joiner resolves with the higher revision", async () => {
    const { c, joiner, device } = setUp();
    for (let i = 0; i < 2; i++) await until(device.refetch(R));
    await tick(HOUR);
    // The claim as an older version writes it, at revision 1, with no time.
    const old = openDocRecords(c.docOf(c.stores[0]!), () => null);
    const key = joiner.keyOf(R);
    c.docOf(c.stores[0]!).transact(() => old.claims.set(key, { replicaId: "old-version", nonce: "n1", rev: 1, leaseMs: 60_000 }));
    await tick(10);
    const joined = background(joiner.ensure(R));
    await tick(10);
    expect(c.host.calls).toHaveLength(2);
    c.net.heal(c.docOf(device));
    expect((await until(joined, 10, 5_000)).data).toEqual({ n: "old 2" });
    old.destroy();
  });

  it("invariant 14: a claim whose `at` is not a finite number is malformed: ignored and listed, never thrown", async () => {
    const { c, joiner } = setUp();
    const doc = c.docOf(c.stores[0]!);
    const peer = openDocRecords(doc, () => null);
    const key = joiner.keyOf(R);
    const claim = { replicaId: "peer", nonce: "n1", rev: 1, leaseMs: 60_000, at: "soon" };
    doc.transact(() => peer.claims.set(key, claim as never));
    await tick(10);
    expect(joiner.claims()).toEqual([]);
    expect(joiner.malformed().map((m) => m.reason)).toContain("claim.at is not a finite number");
    c.host.auto = () => ({ status: 200, body: { n: "fetched" } });
    expect((await until(joiner.ensure(R), 10, 5_000)).data).toEqual({ n: "fetched" });
    peer.destroy();
  });

  it("a replica that asks after the heal, while the claimant's request runs, joins it: no second request, the newer result for every ask", async () => {
    const { c, a, joiner, device } = setUp();
    for (let i = 0; i < 5; i++) await until(device.refetch(R));
    await tick(HOUR);
    c.host.auto = undefined;
    const mine = background(a.ensure(R));
    await tick(10);
    c.net.heal(c.docOf(device));
    await tick(10);
    const asks = [joiner.ensure(R), joiner.ensure(R, { maxAgeMs: 60_000 }), joiner.refetch(R)].map(background);
    const answered: unknown[] = [];
    for (const p of asks) void p.then((s) => answered.push(s.data));
    await tick(10);
    expect(answered).toEqual([]);
    expect(c.host.calls).toHaveLength(6);
    c.host.calls[5]!.respond(200, { n: "newer" });
    for (const p of [mine, ...asks]) expect((await until(p, 10, 5_000)).data).toEqual({ n: "newer" });
    expect(c.host.calls).toHaveLength(6);
  });
});
