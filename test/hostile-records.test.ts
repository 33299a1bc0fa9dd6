import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, ROOTS } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

const HOSTILE: unknown[] = [
  null,
  42,
  "text",
  [1, 2],
  { k: 5, v: {} },
  { v: "no key" },
  { k: "no value" },
  JSON.parse('{"__proto__": {"polluted": true}, "k": "x", "v": 1}'),
];

describe("invariant 14: peers are not trusted to be well-formed", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("malformed entries in every root are ignored, listed for devtools, and never thrown into a writer", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const key = a!.keyOf(req);
    const peer = new Y.Doc();
    c.net.add(peer);
    const badValues: Record<string, unknown[]> = {
      [ROOTS.claims]: [{ replicaId: "", nonce: "n", rev: 1, leaseMs: 5000 }, { replicaId: "x", nonce: "n", rev: -1, leaseMs: 5000 }, { replicaId: "x", nonce: "n", rev: 1, leaseMs: "soon" }],
      [ROOTS.results]: [{ rev: 1 }, { rev: "1", data: 1 }, { rev: 1, data: { f: () => 1 }.f }],
      [ROOTS.programs]: [{ rev: 1, data: { main: 1 } }],
      [ROOTS.errors]: [{ rev: 1 }, { rev: 1, message: 5 }],
      [ROOTS.beats]: [{ n: "1" }],
      [ROOTS.asks]: ["yesterday"],
    };
    // The hostile peer writes garbage; its transaction must not see an exception from our observers.
    expect(() =>
      peer.transact(() => {
        for (const name of Object.values(ROOTS)) {
          const array = peer.getArray<unknown>(name);
          array.push(HOSTILE.filter((v) => typeof v !== "function"));
          for (const value of badValues[name] ?? []) array.push([{ k: key, v: value }]);
        }
      }),
    ).not.toThrow();
    await tick();
    for (const store of [a!, b!]) {
      expect(store.snapshot(req)).toEqual({ status: "idle" });
      expect(store.malformed().length).toBeGreaterThanOrEqual(HOSTILE.length);
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
    c.docOf(a!).getArray(ROOTS.results).push([{ k: a!.keyOf(req), v: { rev: 99, data: Symbol.for("x") === null ? 1 : undefined } }]);
    await tick();
    expect(a!.snapshot(req)).toEqual({ status: "success", data: "good" });
    c.destroy();
  });

  it("a doc that already holds garbage at construction does not stop the store", () => {
    const doc = new Y.Doc();
    doc.getArray(ROOTS.claims).push([null, { k: "x", v: null }]);
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("unused")) });
    expect(store.snapshot(req)).toEqual({ status: "idle" });
    expect(store.malformed().map((m) => m.reason)).toEqual(expect.arrayContaining(["entry is not a { k: string, v } object", "claim is not a plain object"]));
    store.destroy();
  });

  it("a stale foreign claim with a hostile replicaId shape is ignored rather than waited on", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.docOf(a!).getArray(ROOTS.claims).push([{ k: a!.keyOf(req), v: { replicaId: { toString: 1 }, nonce: "n", rev: 1, leaseMs: 1e12 } }]);
    const p = background(a!.ensure(req));
    await tick(30);
    expect(c.host.calls).toHaveLength(1); // nothing valid claims the key, so a claims it at once
    c.host.calls[0]!.respond(200, 1);
    await expect(until(p)).resolves.toMatchObject({ data: 1 });
    c.destroy();
  });
});
