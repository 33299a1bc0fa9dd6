/**
 * Invariant 14, fuzzed: a peer (buggy, older, hostile) writes seeded random garbage through its own
 * Y.Doc, synced to the store's, before the store exists, while its request is in flight, or after
 * its result. Whatever it writes: nothing throws into the peer's transaction or out of the store,
 * no observer fails (console.error), the good result stays, a well-formed later request works, and
 * the store and the devtools model list every malformed record. Deterministic seeds, fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../devtools/index.ts";
import { ROOT, TABLES } from "../src/internals.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

/** 240 cases: 80 per moment, in blocks that each finish well inside the test timeout. */
const SEEDS_PER_MOMENT = 80;
const BLOCK = 20;
const URL_B = `${URL_A}/later`;

/** mulberry32: a small seeded generator, so a failing case replays by its seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  return { next, pick };
}
type Rng = ReturnType<typeof rng>;

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Values no field of any record accepts as a whole record or as `data`. */
const JUNK: readonly (() => unknown)[] = [
  () => null,
  () => NaN,
  () => Infinity,
  () => -1,
  () => "text",
  () => "x".repeat(200_000),
  () => [1, 2],
  () => new Uint8Array([1, 2, 3]),
  () => 10n,
  () => nested(500),
  () => JSON.parse('{"__proto__": {"rev": 9, "data": 1, "polluted": true}}'),
];
const BAD_NUMBERS: readonly unknown[] = [0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 31 + 1, 2 ** 60, "1", null, 10n, [1]];
const BAD_IDS: readonly unknown[] = ["", 7, null, "x".repeat(201), ["id"], { id: 1 }];
const BAD_DATA: readonly unknown[] = [NaN, Infinity, 10n, new Uint8Array([1]), undefined, nested(65), { deep: nested(70) }];

/** One field of a valid record made bad (or removed): [table, value]. Every one fails its validator. */
function badRecord(r: Rng): [string, unknown] {
  const claim = { replicaId: "peer", nonce: "n", rev: 7, leaseMs: 600_000 };
  const result = { rev: 7, data: { n: 666 }, at: Date.now() };
  const error = { rev: 7, message: "boom", status: 500 };
  const variants: (() => [string, unknown])[] = [
    () => [r.pick([TABLES.claims, TABLES.results, TABLES.programs, TABLES.errors, TABLES.beats]), r.pick(JUNK)()],
    () => [TABLES.claims, { ...claim, replicaId: r.pick(BAD_IDS) }],
    () => [TABLES.claims, { ...claim, nonce: r.pick(BAD_IDS) }],
    () => [TABLES.claims, { ...claim, rev: r.pick(BAD_NUMBERS) }],
    () => [TABLES.claims, { ...claim, leaseMs: r.pick([0, -5, NaN, Infinity, 1e15, "5000", null]) }],
    () => [TABLES.claims, { ...claim, abandoned: r.pick([false, 1, "yes"]) }],
    () => [TABLES.claims, { ...claim, kind: r.pick(["__proto__", "constructor", 1]) }],
    () => [TABLES.results, { ...result, rev: r.pick(BAD_NUMBERS) }],
    () => [TABLES.results, { ...result, data: r.pick(BAD_DATA) }],
    () => [TABLES.results, { rev: 7 }],
    () => [TABLES.results, { ...result, at: r.pick([NaN, Infinity, "now", null]) }],
    () => [TABLES.results, { ...result, label: r.pick([1, null, ["GET"]]) }],
    () => [TABLES.results, { ...result, by: r.pick(BAD_IDS) }],
    () => [TABLES.programs, { rev: 7, data: r.pick([{ main: 1 }, { main: "/m.ts", files: "x", externals: [] }, null]) }],
    () => [TABLES.errors, { ...error, rev: r.pick(BAD_NUMBERS) }],
    () => [TABLES.errors, { ...error, message: r.pick([5, null, { m: 1 }]) }],
    () => [TABLES.errors, { ...error, status: r.pick([1.5, NaN, "500", null]) }],
    () => [TABLES.errors, { ...error, kind: r.pick(["__proto__", "query"]) }],
    () => [TABLES.beats, { n: r.pick([1.5, NaN, "1", 2 ** 60, null]) }],
    () => [TABLES.beats, { n: 1, nonces: r.pick(["n", [""], [1], { 0: "n" }]) }],
    () => [TABLES.asks, r.pick(["yesterday", NaN, Infinity, null, { at: 1 }])],
  ];
  return r.pick(variants)();
}

/** Lane elements that are no { t, k, v, s } record at all. */
function shapeless(r: Rng): unknown {
  return r.pick<() => unknown>([
    () => null,
    () => 42,
    () => "entry",
    () => new Y.Map(),
    () => new Y.Text("t"),
    () => new Y.Array(),
    () => new Y.Doc(),
    () => ({ t: 5, k: "x", v: {}, s: 1 }),
    () => ({ t: TABLES.results, k: "x", s: 1 }),
    () => ({ t: TABLES.results, k: "x", v: 1, s: "1" }),
    () => ({ t: "no-such-table", k: "x", v: 1, s: 1 }),
    () => ({ t: TABLES.results, k: ["x"], v: 1, s: 1 }),
  ])();
}

/** Root elements that are no lane. */
const NOT_LANES: readonly (() => unknown)[] = [() => null, () => 7, () => ({ lane: 1 }), () => new Y.Map(), () => new Y.Text("x")];

/**
 * Writes 1-8 malformed things over `key` (and keys near it: empty, longer, shorter, huge) through
 * the peer in one or several transactions; returns how many malformed records they make.
 */
function writeGarbage(r: Rng, peer: Y.Doc, key: string): number {
  let count = 0;
  const keys = [key, key, key, "", `${key}x`, key.slice(0, -1), "__proto__", "k".repeat(50_000)];
  const transactions = 1 + Math.floor(r.next() * 3);
  for (let t = 0; t < transactions; t++) {
    peer.transact(() => {
      const root = peer.getArray<unknown>(ROOT);
      if (r.next() < 0.3) {
        root.push([r.pick(NOT_LANES)()]);
        count++;
      }
      const lane = new Y.Array<unknown>();
      const items: unknown[] = [];
      for (let i = 1 + Math.floor(r.next() * 3); i > 0; i--) {
        if (r.next() < 0.25) items.push(shapeless(r));
        else {
          const [table, v] = badRecord(r);
          // A huge seq: were the record valid, it would win over the store's own.
          items.push({ t: table, k: r.pick(keys), v, s: r.pick([1e9, Number.MAX_SAFE_INTEGER, 1e300, -1, NaN]) });
        }
        count++;
      }
      lane.push(items);
      root.push([lane]);
    });
  }
  return count;
}

let consoleError: MockInstance<typeof console.error>;
beforeEach(() => {
  useFakeClock();
  consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  consoleError.mockRestore();
  vi.useRealTimers();
});

const MOMENTS = ["before mount", "in flight", "after the result"] as const;

describe("invariant 14, fuzzed: malformed records from a synced peer at any moment of a store's life", () => {
  for (const moment of MOMENTS)
    for (let from = 0; from < SEEDS_PER_MOMENT; from += BLOCK)
      it(`seeds ${from}-${from + BLOCK - 1}, garbage written ${moment}: nothing throws, the good result stays, later work works, every record is listed`, async () => {
        for (let seed = from; seed < from + BLOCK; seed++) {
          const r = rng(seed * 31 + MOMENTS.indexOf(moment));
          const c = cluster(0);
          const peer = c.net.add(new Y.Doc());
          const req = { url: URL_A };
          let bad = 0;
          const key = () => c.stores[0]!.keyOf(req);
          if (moment === "before mount") {
            const probe = c.join();
            const k = probe.keyOf(req);
            probe.destroy();
            c.stores.length = 0;
            bad += writeGarbage(r, peer, k);
          }
          const a = c.join();
          // Listed as it arrives (a rewrite of the key later deletes what lies on it, listed or not).
          expect(a.malformed(), `seed ${seed}`).toHaveLength(bad);
          const model = createDevtoolsModel(a);
          const notified = vi.fn();
          a.subscribe(req, notified);
          const first = a.ensure(req);
          await tick(30);
          expect(c.host.calls, `seed ${seed}`).toHaveLength(1);
          if (moment === "in flight") {
            const n = writeGarbage(r, peer, key());
            expect(a.malformed(), `seed ${seed}`).toHaveLength((bad = n));
          }
          await tick(1);
          c.host.calls[0]!.respond(200, { n: 1 });
          await expect(until(first, 10, 60_000), `seed ${seed}`).resolves.toEqual({ status: "success", data: { n: 1 } });
          if (moment === "after the result") {
            const n = writeGarbage(r, peer, key());
            expect(a.malformed(), `seed ${seed}`).toHaveLength((bad = n));
          }
          await tick(10);
          expect(a.snapshot(req), `seed ${seed}`).toEqual({ status: "success", data: { n: 1 } });
          await tick(200);
          expect(model.getSnapshot().malformed, `seed ${seed}`).toEqual(a.malformed());
          // A later well-formed record still works: a refetch of the key and a new key.
          c.host.auto = (call) => ({ status: 200, body: { n: call.url === URL_B ? 3 : 2 } });
          await expect(until(a.refetch(req), 10, 60_000), `seed ${seed}`).resolves.toEqual({ status: "success", data: { n: 2 } });
          await expect(until(a.ensure({ url: URL_B }), 10, 60_000), `seed ${seed}`).resolves.toEqual({ status: "success", data: { n: 3 } });
          await tick(200);
          expect(model.getSnapshot().malformed, `seed ${seed}`).toEqual(a.malformed());
          expect(consoleError, `seed ${seed}`).not.toHaveBeenCalled();
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          model.destroy();
          c.destroy();
          peer.destroy();
        }
      });
});
