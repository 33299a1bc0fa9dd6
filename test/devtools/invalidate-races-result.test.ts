/**
 * The devtools' invalidate (every replica's record dated at the epoch) racing a result another
 * replica's request brings home just after: that request was sent before the invalidation and may
 * have read what it was meant to drop. Its result is shown (it is the newest data), yet it leaves
 * the key invalidated: the next freshness demand on any of the three replicas sends exactly one
 * request, and they all end on data read after the invalidation. A request sent after it clears it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const R = { url: URL_A };
const MINUTE = 60_000;

async function resultThenRefetchInFlight() {
  const c = cluster(3, { settleMs: 0 });
  const [a, b, other] = c.stores;
  c.host.auto = () => ({ status: 200, body: { n: "first" } });
  await until(a!.ensure(R));
  c.host.auto = undefined;
  await tick(1_000);
  const refetched = background(b!.refetch(R));
  await tick(10);
  expect(c.host.calls).toHaveLength(2);
  return { c, a: a!, b: b!, other: other!, refetched, call: c.host.calls[1]! };
}

describe("devtools: an invalidation is not undone by a result whose request was sent before it", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("three replicas: the result sent before it is shown, still stale; the next demand anywhere sends one request", async () => {
    const { c, a, b, other, refetched, call } = await resultThenRefetchInFlight();
    await tick(100);
    expect(invalidateKey(a, a.keyOf(R))).toMatchObject({ ok: true, doc: true });
    await tick(10);
    call.respond(200, { n: "read before the invalidation" });
    expect((await until(refetched)).data).toEqual({ n: "read before the invalidation" });
    await tick(10);
    for (const s of [a, b, other]) {
      expect(s.snapshot(R).data).toEqual({ n: "read before the invalidation" });
      expect(s.resultInfo(R)).toEqual({ rev: 2, at: 0 });
    }
    c.host.auto = () => ({ status: 200, body: { n: "after" } });
    const asks = [other, a, b].map((s) => background(s.ensure(R, { maxAgeMs: MINUTE })));
    for (const ask of asks) expect((await until(ask)).data).toEqual({ n: "after" });
    expect(c.host.calls).toHaveLength(3);
    for (const s of [a, b, other]) expect(s.resultInfo(R)!.at).toBeGreaterThan(0);
  });

  it("a request sent after the invalidation clears it: its result meets the next demand", async () => {
    const { c, a, b, other, refetched, call } = await resultThenRefetchInFlight();
    call.respond(200, { n: "second" });
    await until(refetched);
    expect(invalidateKey(a, a.keyOf(R))).toMatchObject({ ok: true, doc: true });
    c.host.auto = () => ({ status: 200, body: { n: "third" } });
    expect((await until(b.ensure(R, { maxAgeMs: MINUTE }))).data).toEqual({ n: "third" });
    await tick(10);
    expect((await until(other.ensure(R, { maxAgeMs: MINUTE }))).data).toEqual({ n: "third" });
    expect(c.host.calls).toHaveLength(3);
    expect(other.resultInfo(R)!.at).toBeGreaterThan(0);
  });
});
