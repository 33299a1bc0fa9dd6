/**
 * The heal rules for results hold for errors too. The other side's higher revision may be an error
 * (its refetch failed while cut off from us): an invalidation made here after that request was sent
 * leaves it stale on every replica, and a result fetched here after it is recorded again at its
 * revision, so every replica shows that newer data. An error never hides or erases a result sent
 * after it (invariant 7); a result never counts as fresh past an invalidation made after it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invalidateKey } from "../devtools/invalidate.ts";
import { internalsOf } from "../src/internals.ts";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function twoSides() {
  const c = cluster(2, { settleMs: 0 });
  let n = 0;
  let failing = false;
  c.host.auto = () => (failing ? { status: 503, body: "down" } : { status: 200, body: { n: ++n } });
  return { c, a: c.stores[0]!, b: c.stores[1]!, fail: (on: boolean) => (failing = on) };
}

const errorOf = (s: ReturnType<typeof twoSides>["a"]) => internalsOf(s).records.errors.get(s.keyOf(R));

describe("errors at a partition's heal (freshness across partitions, invariant 7)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the other side's higher-revision error, sent before an invalidation made here, is stale on every replica; the next demand sends one request", async () => {
    const { c, a, b, fail } = twoSides();
    await until(a.ensure(R)); // revision 1, { n: 1 }
    await tick(10);
    c.net.isolate(c.docOf(b));
    fail(true);
    await until(b.refetch(R, { retry: false }).catch(() => {})); // b's revision 2: an error, sent before the invalidation
    fail(false);
    await tick(MINUTE);
    expect(invalidateKey(a, a.keyOf(R))).toMatchObject({ ok: true, doc: true });
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) {
      expect(s.snapshot(R)).toMatchObject({ status: "error", data: { n: 1 } });
      expect(errorOf(s)).toMatchObject({ rev: 2, at: 0 });
    }
    const calls = c.host.calls.length;
    expect((await until(b.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 2 });
    await tick(10);
    expect((await until(a.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(calls + 1);
  });

  it("a result fetched here after the other side's higher-revision error was sent is recorded again at its revision: every replica shows it, fresh", async () => {
    const { c, a, b, fail } = twoSides();
    await until(a.ensure(R)); // revision 1
    await tick(10);
    c.net.isolate(c.docOf(b));
    fail(true);
    for (let i = 0; i < 2; i++) await until(b.refetch(R, { retry: false }).catch(() => {})); // b's errors 2 and 3
    fail(false);
    await tick(HOUR);
    expect((await until(a.refetch(R))).data).toEqual({ n: 2 }); // a's revision 2, an hour newer
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: 2 } });
      expect(s.resultInfo(R)!.rev).toBe(3);
    }
    expect((await until(b.ensure(R, { maxAgeMs: HOUR }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(4);
  });

  it("the other side's error left at the revision the newer result is recorded again at is removed: no reader shows it beside that result", async () => {
    const { c, a, b, fail } = twoSides();
    await until(a.ensure(R)); // revision 1
    await tick(10);
    c.net.isolate(c.docOf(b));
    await until(b.refetch(R)); // b's revision 2, { n: 2 }
    fail(true);
    await until(b.refetch(R, { retry: false }).catch(() => {})); // b's revision 3: an error
    fail(false);
    await tick(HOUR);
    expect((await until(a.refetch(R))).data).toEqual({ n: 3 }); // a's revision 2, an hour newer
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: 3 } });
      expect(s.resultInfo(R)!.rev).toBe(3);
      // As a result written by its request removes an error at or below its revision (writeback).
      expect(errorOf(s)).toBeUndefined();
      const row = s.inspect().keys.find((k) => k.key === s.keyOf(R))!;
      expect(row).toMatchObject({ recorded: 3, result: { rev: 3, data: { n: 3 } } });
      expect(row.error).toBeUndefined();
    }
  });

  it("a key whose only outcome was an error, invalidated while a refetch ran here: that result keeps the mark's time, so the heal's older higher revision stays stale", async () => {
    const { c, a, b, fail } = twoSides();
    fail(true);
    await until(a.ensure(R, { retry: false }).catch(() => {})); // revision 1: an error, no result ever
    fail(false);
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
    c.net.heal(c.docOf(b));
    await tick(10);
    for (const s of [a, b]) expect(s.resultInfo(R)).toEqual({ rev: 3, at: 0 });
  });

  it("an error mark whose time is not a number is ignored and listed as malformed (invariant 14)", async () => {
    const { a, fail } = twoSides();
    fail(true);
    await until(a.ensure(R, { retry: false }).catch(() => {}));
    const { records } = internalsOf(a);
    records.doc.transact(() => records.errors.set(a.keyOf(R), { ...errorOf(a)!, at: 0, inv: "soon" } as never));
    await tick(10);
    expect(a.snapshot(R).status).toBe("idle");
    expect(records.malformed().map((m) => m.reason)).toContain("error.inv is not a finite number");
  });
});
