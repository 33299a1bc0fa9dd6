import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { ROOT, TABLES } from "../src/internals.ts";
import { peerWrites } from "./harness/doc-records.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

const HOSTILE_ENTRIES: unknown[] = [
  null,
  42,
  "text",
  [1, 2],
  { t: 5, k: "x", v: {}, s: 1 },
  { t: "claims", v: "no key", s: 1 },
  { t: "claims", k: "no value", s: 1 },
  { t: "claims", k: "no seq", v: 1 },
  { t: "nonsense-table", k: "x", v: 1, s: 1 },
  JSON.parse('{"__proto__": {"polluted": true}, "t": "results", "k": "x", "v": 1, "s": 1}'),
];

describe("invariant 14: peers are not trusted to be well-formed", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("prototype pollution: peer records keyed `__proto__` and `constructor` stay plain entries of their tables", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const peer = new Y.Doc();
    c.net.add(peer);
    const claim = { replicaId: "peer", nonce: "n", rev: 1, leaseMs: 5000, label: "GET https://x.test/p" };
    // Yjs stores the key as a string field: a store that indexed records in a plain object would
    // set the index's prototype here, and `{}.replicaId` would read the peer's value.
    peerWrites(peer, [
      { t: TABLES.claims, k: "__proto__", v: claim, s: 1 },
      { t: TABLES.results, k: "constructor", v: { rev: 1, data: { ok: 1 } }, s: 1 },
    ]);
    await tick();
    for (const store of [a!, b!]) {
      expect(store.claims()).toEqual([["__proto__", claim]]);
      const keys = store
        .inspect()
        .keys.map((k) => k.key)
        .sort();
      expect(keys).toEqual(["__proto__", "constructor"]);
      expect(store.malformed()).toEqual([]);
    }
    expect(Object.prototype).not.toHaveProperty("replicaId");
    expect(({} as Record<string, unknown>).replicaId).toBeUndefined();
    expect(a!.inspect().keys.find((k) => k.key === "constructor")!.result).toEqual({ rev: 1, data: { ok: 1 } });
    c.destroy();
  });

  it("malformed lanes and records are ignored, listed for devtools, and never thrown into a writer", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const key = a!.keyOf(req);
    const peer = new Y.Doc();
    c.net.add(peer);
    const badValues: [string, unknown][] = [
      [TABLES.claims, { replicaId: "", nonce: "n", rev: 1, leaseMs: 5000 }],
      [TABLES.claims, { replicaId: "x", nonce: "n", rev: -1, leaseMs: 5000 }],
      [TABLES.claims, { replicaId: "x", nonce: "n", rev: 1, leaseMs: "soon" }],
      [TABLES.results, { rev: 1 }],
      [TABLES.results, { rev: "1", data: 1 }],
      [TABLES.results, { rev: 1, data: { big: Infinity } }],
      [TABLES.programs, { rev: 1, data: { main: 1 } }],
      [TABLES.errors, { rev: 1 }],
      [TABLES.errors, { rev: 1, message: 5 }],
      [TABLES.errors, { rev: 1, message: "m", label: { toString: "x" } }],
      [TABLES.errors, { rev: 1, message: "m", kind: "__proto__" }],
      [TABLES.beats, { n: "1" }],
      [TABLES.asks, "yesterday"],
    ];
    // The hostile peer writes garbage; its transaction must not see an exception from our observers.
    expect(() =>
      peer.transact(() => {
        peer.getArray<unknown>(ROOT).push([null, 7, { not: "a lane" }]);
        peerWrites(peer, [...HOSTILE_ENTRIES, ...badValues.map(([t, v], i) => ({ t, k: key, v, s: 100 + i }))]);
      }),
    ).not.toThrow();
    await tick();
    for (const store of [a!, b!]) {
      expect(store.snapshot(req)).toEqual({ status: "idle" });
      expect(store.malformed().length).toBe(3 + HOSTILE_ENTRIES.length + badValues.length);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The store still does its job on top of the garbage.
    c.host.auto = () => ({ status: 200, body: { fine: true } });
    await expect(until(b!.ensure(req))).resolves.toEqual({ status: "success", data: { fine: true } });
    expect(a!.snapshot(req)).toEqual({ status: "success", data: { fine: true } });
    c.destroy();
  });

  it("a malformed record written over a good one does not erase it: the newest valid record stands", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "good" });
    await until(a!.ensure(req));
    peerWrites(c.docOf(a!), [{ t: TABLES.results, k: a!.keyOf(req), v: { rev: 99 }, s: 1000 }]);
    await tick();
    expect(a!.snapshot(req)).toEqual({ status: "success", data: "good" });
    c.destroy();
  });

  it("a doc that already holds garbage at construction does not stop the store", () => {
    const doc = new Y.Doc();
    doc.getArray(ROOT).push([null]);
    peerWrites(doc, [{ t: TABLES.claims, k: "x", v: null, s: 1 }]);
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("unused")) });
    expect(store.snapshot(req)).toEqual({ status: "idle" });
    expect(store.malformed().map((m) => m.reason)).toEqual(["lane is not a Y.Array", "claim is not a plain object"]);
    store.destroy();
  });

  it("a claim with a hostile replicaId shape is ignored rather than waited on", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    peerWrites(c.docOf(a!), [
      { t: TABLES.claims, k: a!.keyOf(req), v: { replicaId: { toString: 1 }, nonce: "n", rev: 1, leaseMs: 1e12 }, s: 1 },
    ]);
    const p = background(a!.ensure(req));
    await tick(30);
    expect(c.host.calls).toHaveLength(1); // nothing valid claims the key, so a claims it at once
    c.host.calls[0]!.respond(200, 1);
    await expect(until(p)).resolves.toMatchObject({ data: 1 });
    c.destroy();
  });
});

describe("a doc whose root name is taken by another type", () => {
  it("createSharedFetchStore says so instead of failing deep inside Yjs", () => {
    const doc = new Y.Doc();
    doc.getMap(ROOT).set("x", 1);
    expect(() => createSharedFetchStore({ doc })).toThrow(/root type "shared-fetch:lanes" is already used as another type/);
  });
});
