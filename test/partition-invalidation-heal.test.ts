/**
 * An invalidation made on one side of a partition, met at the heal by the other side's higher
 * revision whose request was sent before it: that result read what the invalidation was meant to
 * drop (a mutation's target before the mutation). It is shown (the newest data anyone has), but
 * recorded invalidated: the next freshness demand anywhere fetches. A result sent after the
 * invalidation stays fresh. The mark carries its time (`inv`); a malformed one is ignored and listed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invalidateKey } from "../devtools/invalidate.ts";
import { internalsOf } from "../src/internals.ts";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function counting() {
  const c = cluster(2, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  return { c, a: c.stores[0]!, b: c.stores[1]! };
}

describe("an invalidation made during a partition survives the heal (freshness across partitions)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the other side's higher revision, sent before the invalidation, is shown but stale on every replica; the next demand sends one request", async () => {
    const { c, a, b } = counting();
    await until(a.ensure(R)); // revision 1, { n: 1 }, written by a
    await tick(10);
    c.net.isolate(c.docOf(b));
    await until(b.refetch(R)); // b's revision 2, { n: 2 }, sent before the invalidation
    await tick(MINUTE);
    expect(invalidateKey(a, a.keyOf(R))).toMatchObject({ ok: true, doc: true });
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: 2 } });
      expect(s.resultInfo(R)).toEqual({ rev: 2, at: 0 });
    }
    expect((await until(b.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 3 });
    await tick(10);
    expect((await until(a.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 3 });
    expect(c.host.calls).toHaveLength(3);
  });

  it("the invalidation met a request in flight on its side (recorded stale, with the mark's time): the heal's older result stays stale too", async () => {
    const { c, a, b } = counting();
    await until(a.ensure(R));
    await tick(10);
    c.net.isolate(c.docOf(b));
    for (let i = 0; i < 2; i++) await until(b.refetch(R)); // b's revisions 2 and 3, sent first
    await tick(MINUTE);
    c.host.auto = undefined;
    const refetched = a.refetch(R); // a's revision 2, in flight
    await tick(10);
    expect(invalidateKey(a, a.keyOf(R))).toMatchObject({ ok: true, doc: true });
    c.host.calls.at(-1)!.respond(200, { n: "read before the invalidation" });
    await until(refetched);
    expect(a.resultInfo(R)).toEqual({ rev: 2, at: 0 });
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) expect(s.resultInfo(R)).toEqual({ rev: 3, at: 0 });
    c.host.auto = () => ({ status: 200, body: { n: "after" } });
    expect((await until(b.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: "after" });
  });

  it("a higher revision whose request was sent after the invalidation stays fresh", async () => {
    const { c, a, b } = counting();
    await until(a.ensure(R));
    await tick(10);
    c.net.isolate(c.docOf(b));
    expect(invalidateKey(a, a.keyOf(R))).toMatchObject({ ok: true, doc: true });
    await tick(MINUTE);
    await until(b.refetch(R)); // sent a minute after the invalidation
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) expect(s.resultInfo(R)!.at).toBeGreaterThan(0);
    expect((await until(a.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("a mark whose time is not a number is ignored and listed as malformed (invariant 14)", async () => {
    const { a } = counting();
    await until(a.ensure(R));
    const { records } = internalsOf(a);
    records.doc.transact(() => records.results.set(a.keyOf(R), { ...records.results.get(a.keyOf(R))!, at: 0, inv: "soon" as never }));
    await tick(10);
    expect(a.snapshot(R).status).toBe("idle");
    expect(records.malformed().map((m) => m.reason)).toContain("result.inv is not a finite number");
  });
});
