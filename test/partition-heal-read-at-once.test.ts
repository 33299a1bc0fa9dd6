/**
 * At a partition's heal the other side's higher revision, older data, wins the merge, and one
 * replica records the newer data again at that revision (keepNewer). Every other replica reads that
 * record at once, before the writer's copy reaches it over the network: a third replica that showed
 * the newer data never shows the older one in between (data going back in time), and an
 * `ensure(req, { maxAgeMs })` it makes just after the heal is met without a request.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

/** `far` cut off, three results old; `near` fetched an hour later and `third` shows it. */
async function healed() {
  const c = cluster(3, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  const [near, far, third] = c.stores as [(typeof c.stores)[0], (typeof c.stores)[0], (typeof c.stores)[0]];
  c.net.isolate(c.docOf(far));
  for (let i = 0; i < 3; i++) await until(far.refetch(R)); // far's revisions 1 to 3, { n: 3 } last
  await tick(HOUR);
  expect((await until(near.ensure(R))).data).toEqual({ n: 4 }); // near's revision 1
  await tick(10);
  expect(third.snapshot(R).data).toEqual({ n: 4 });
  const seen: unknown[] = [];
  third.subscribe(R, () => seen.push(third.snapshot(R).data));
  c.net.delayMs = 5; // the writer's copy reaches the third replica a hop after the heal
  c.net.heal(c.docOf(far));
  return { c, third, far, seen };
}

describe("keepNewer's record is read by every replica at once (freshness across partitions)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a replica that showed the newer data never shows the other side's older data while the writer's copy is on its way", async () => {
    const { third, far, seen } = await healed();
    for (let i = 0; i < 20; i++) {
      expect(third.snapshot(R).data).toEqual({ n: 4 });
      await tick(1);
    }
    expect(seen).not.toContainEqual({ n: 3 });
    for (const s of [third, far]) expect(s.resultInfo(R)!.rev).toBe(3);
  });

  it("an ensure with maxAgeMs made just after the heal is met by the newer data: no request", async () => {
    const { c, third } = await healed();
    await tick(1); // the other side's records arrived; the writer's copy has not
    expect((await until(third.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 4 });
    expect(c.host.calls).toHaveLength(4);
  });
});
