/**
 * Revisions numbered apart, the newer data recorded again at the winner's revision (keepNewer):
 * whether a contender is newer is judged by the writers' dates, as the doc orders two outcomes of
 * one revision. A replica that first saw the winner before its writer's clock said it was written
 * (that clock ran ahead of this one's, or this one's runs slow) trusted an earlier date for it
 * and judged the other side's data newer where the others and the doc did not: it alone showed
 * that data, for as long as the winner stood, and its rewrite, if it was the one to write, lost in
 * the doc to the winner's later date. A side whose clock runs slow loses that merge (README).
 * So with an invalidation made on the other side: its time is weighed against the winner's date
 * as written. A replica that had seen the winner early read it invalidated where the others did
 * not, and its next freshness demand alone sent a request. And with a request in flight at the
 * heal (outran): the claimant weighs the winner's date as written against its send and takes it
 * for its answer; a replica that had seen the winner early took it for older, waited on the claim
 * alone until its lease ran out, and sent the request again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { linkedAwareness } from "./devtools/awareness.ts";
import { invalidateKey } from "../devtools/invalidate.ts";
import { background, type Cluster, cluster, onDevice, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
type Store = ReturnType<Cluster["join"]>;

/** `first` is cut off; `ahead`, whose clock runs two hours ahead, refetches (from revision 2) a minute before `first` acts. */
async function aheadRefetchesWhileCutOff(times = 1) {
  const c = cluster(0, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  const [first, near, ahead] = ["r-a-first", "r-b-near", "r-c-ahead"].map((replicaId) => c.join({ replicaId })) as [Store, Store, Store];
  await until(first.ensure(R)); // revision 1, { n: 1 }
  await tick(10);
  c.net.isolate(c.docOf(first));
  // `near` sees it as it is written, on its own clock: two hours before the date it carries.
  await onDevice(c, ahead, 2 * HOUR, async () => {
    for (let i = 0; i < times; i++) await until(ahead.refetch(R));
  });
  await tick(10);
  expect(near.snapshot(R).data).toEqual({ n: 1 + times });
  await tick(MINUTE);
  return { c, first, near, ahead };
}

describe("a partition's heal with clocks apart (freshness across partitions)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("every replica shows the value the doc keeps, whatever clock each first saw the winner by", async () => {
    const links = linkedAwareness(3);
    const c = cluster(0, { settleMs: 0 });
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    const [writer, near, ahead] = ["r-writer", "r-a-near", "r-c-ahead"].map((replicaId, i) =>
      c.join({ replicaId, awareness: links.all[i]! }),
    );
    c.net.isolate(c.docOf(writer!));
    // `ahead`'s clock runs two hours ahead of `near`'s (or `near`'s two hours slow): `near` sees its
    // revisions 1 to 3 as they are written, an hour before the writer fetches.
    await onDevice(c, ahead!, 2 * HOUR, async () => {
      for (let i = 0; i < 3; i++) await until(ahead!.refetch(R));
    });
    await tick(10);
    expect(near!.snapshot(R).data).toEqual({ n: 3 });
    await tick(HOUR);
    expect((await until(writer!.ensure(R))).data).toEqual({ n: 4 }); // dated an hour before `ahead`'s
    c.net.heal(c.docOf(writer!));
    await tick(50);
    for (const s of [writer!, near!, ahead!])
      expect({ data: s.snapshot(R).data, rev: s.resultInfo(R)?.rev }).toEqual({ data: { n: 3 }, rev: 3 });
    const late = c.join({ replicaId: "r-d-late" });
    await tick(10);
    expect(late.snapshot(R).data).toEqual({ n: 3 });
    links.destroy();
  });

  it("an invalidation made on the other side meets the winner: every replica judges it by the two dates as written, whatever clock each first saw the winner by", async () => {
    const { c, first, near, ahead } = await aheadRefetchesWhileCutOff();
    expect(invalidateKey(first, first.keyOf(R))).toMatchObject({ ok: true, doc: true }); // dated before `ahead`'s result
    c.net.heal(c.docOf(first));
    await tick(10);
    // `near` had seen the winner before the mark's time and alone read it invalidated.
    for (const s of [first, near, ahead]) {
      expect(s.snapshot(R).data).toEqual({ n: 2 });
      expect(s.resultInfo(R)!.rev).toBe(2);
      expect(s.resultInfo(R)!.at).toBeGreaterThan(0);
    }
    for (const s of [first, near, ahead]) expect((await until(s.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("a request in flight at the heal meets the winner: a replica that joins its claim judges the winner by its date as written, as the claimant does", async () => {
    const { c, first, near, ahead } = await aheadRefetchesWhileCutOff(2); // revisions 2 and 3
    c.host.auto = undefined;
    background(first.refetch(R)); // `first`'s revision 2, sent a minute after `ahead`'s, dated before it
    await tick(10);
    // Its connection comes back for a moment and drops again: its claim reaches the others, its
    // release does not. It takes `ahead`'s later-dated result for its request's answer.
    c.net.heal(c.docOf(first));
    c.net.isolate(c.docOf(first));
    await tick(10);
    expect(first.snapshot(R).data).toEqual({ n: 3 });
    const answered: unknown[] = [];
    // `near`, having seen that result before its date, took it for older than the request and
    // waited on the claim until its lease ran out, then sent the request again.
    for (const s of [near, ahead])
      void s.ensure(R).then(
        (snap) => answered.push(snap.data),
        () => {},
      );
    await tick(10);
    expect(answered).toEqual([{ n: 3 }, { n: 3 }]);
    await tick(30_000);
    expect(c.host.calls).toHaveLength(4);
    for (const s of [near, ahead]) expect({ data: s.snapshot(R).data, rev: s.resultInfo(R)?.rev }).toEqual({ data: { n: 3 }, rev: 3 });
  });
});
