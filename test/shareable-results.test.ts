import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, DEFAULT_MAX_RESULT_BYTES, SharedFetchInputError } from "../src/index.ts";
import { TABLES } from "../src/internals.ts";
import { MAX_REV } from "../src/core/records.ts";
import { peerWrites } from "./harness/doc-records.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const LEASE = 1000;

/**
 * Finding 2 of issue 8: a record one replica writes must be one every replica reads, or the loop
 * "fetch, write something unreadable, see nothing recorded, fetch again" never ends.
 */
describe("write only what everyone can read", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("invariant 14: a peer's record at revision MAX_SAFE_INTEGER is malformed, not a revision to build on", async () => {
    const c = cluster(2, { leaseMs: LEASE });
    const [a, b] = c.stores;
    const key = a!.keyOf(req);
    const huge = Number.MAX_SAFE_INTEGER;
    peerWrites(c.docOf(a!), [
      { t: TABLES.results, k: key, v: { rev: huge, data: "forged" }, s: 1 },
      { t: TABLES.claims, k: key, v: { replicaId: "ghost", nonce: "n", rev: huge, leaseMs: LEASE }, s: 1 },
    ]);
    await tick();
    expect(a!.malformed().map((m) => m.reason)).toEqual([
      "result.rev is not an integer from 1 to 2147483648",
      "claim.rev is not an integer from 1 to 2147483648",
    ]);
    c.host.auto = () => ({ status: 200, body: { n: c.host.calls.length } });
    await expect(until(a!.ensure(req))).resolves.toEqual({ status: "success", data: { n: 1 } });
    await expect(until(a!.refetch(req))).resolves.toEqual({ status: "success", data: { n: 2 } });
    await tick(3 * LEASE);
    expect(c.host.calls).toHaveLength(2);
    expect(b!.snapshot(req)).toEqual({ status: "success", data: { n: 2 } });
    c.destroy();
  });

  it("a peer's record at exactly the revision bound: a refetch settles with what is there instead of claiming a revision nobody could read", async () => {
    const c = cluster(2, { leaseMs: LEASE });
    const [a, b] = c.stores;
    const key = a!.keyOf(req);
    peerWrites(c.docOf(a!), [{ t: TABLES.results, k: key, v: { rev: MAX_REV, data: "at the bound" }, s: 1 }]);
    await tick();
    expect(a!.malformed()).toEqual([]);
    c.host.auto = () => ({ status: 200, body: "never asked" });
    await expect(until(a!.refetch(req))).resolves.toEqual({ status: "success", data: "at the bound" });
    await tick(3 * LEASE);
    expect(c.host.calls).toHaveLength(0);
    expect(b!.snapshot(req)).toEqual({ status: "success", data: "at the bound" });
    c.destroy();
  });

  it.each([
    ["JSON nested 65 levels deep", `${"[".repeat(65)}${"]".repeat(65)}`, "its data is nested more than 64 levels deep"],
    [
      '{"big":1e999} (Infinity once parsed)',
      '{"big":1e999}',
      "its data holds a number JSON cannot carry (Infinity or NaN, e.g. from 1e999)",
    ],
    [
      'a "__proto__" key (peers would decode it as a prototype)',
      '{"__proto__":{"x":1},"a":1}',
      'its data holds a "__proto__" key, which peers would not read back as a key',
    ],
  ])(
    "invariant 7: a response no replica could read back (%s) is recorded as an error; the loop ends, the good result stays",
    async (_what, body, problem) => {
      const c = cluster(2, { leaseMs: LEASE });
      const [a, b] = c.stores;
      c.host.auto = () => ({ status: 200, body: "good" });
      await until(a!.ensure(req));
      c.host.auto = (call) => void call.respondRaw(200, body);
      const snap = await until(a!.refetch(req));
      const error = { message: `result cannot be shared: ${problem} (GET ${URL_A})` };
      expect(snap).toEqual({ status: "error", data: "good", error });
      await tick(3 * LEASE);
      expect(c.host.calls).toHaveLength(2); // one good, one unshareable: no loop
      expect(b!.snapshot(req)).toEqual({ status: "error", data: "good", error });
      expect(a!.malformed()).toEqual([]);
      expect(b!.malformed()).toEqual([]);
      c.destroy();
    },
  );

  it("invariant 8: a first response that cannot be shared settles every replica as an error, none shows idle", async () => {
    const c = cluster(2, { leaseMs: LEASE });
    const [a, b] = c.stores;
    c.host.auto = (call) => void call.respondRaw(200, `${"[".repeat(100)}${"]".repeat(100)}`);
    const waits = [a!.ensure(req), b!.ensure(req)];
    const snaps = await until(Promise.all(waits));
    for (const snap of snaps) expect(snap.status).toBe("error");
    await tick(3 * LEASE);
    expect(c.host.calls).toHaveLength(1);
    c.destroy();
  });
});

describe("maxResultBytes: a bound on what one response may add to the shared doc", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a 20 MiB response (Content-Length) becomes an error record, never doc content", async () => {
    const c = cluster(2, { leaseMs: LEASE });
    const [a, b] = c.stores;
    const body = JSON.stringify({ pad: "x".repeat(20 * 1024 * 1024) });
    c.host.auto = (call) => void call.respondRaw(200, body, { "content-length": String(body.length) });
    const snap = await until(a!.ensure(req));
    const message = `result cannot be shared: the response to GET ${URL_A} is 20.0 MiB (${body.length} bytes), more than maxResultBytes (1048576 bytes)`;
    expect(snap).toEqual({ status: "error", error: { message } });
    expect(b!.snapshot(req)).toEqual({ status: "error", error: { message } });
    expect(Y.encodeStateAsUpdate(c.docOf(b!)).byteLength).toBeLessThan(4096);
    await tick(3 * LEASE);
    expect(c.host.calls).toHaveLength(1);
    c.destroy();
  });

  it("a body without Content-Length is counted as it arrives (UTF-8 bytes), and a store may set its own bound", async () => {
    const c = cluster(1, { maxResultBytes: 100 });
    const [a] = c.stores;
    // Two quotes and 50 characters of 2 bytes each: 102 bytes in UTF-8 (52 characters), more than 100.
    c.host.auto = (call) => void call.respondRaw(200, JSON.stringify("é".repeat(50)));
    const snap = await until(a!.ensure(req));
    expect(snap.error).toEqual({
      message: `result cannot be shared: the response to GET ${URL_A} is more than maxResultBytes (100 bytes)`,
    });
    c.host.auto = (call) => void call.respondRaw(200, JSON.stringify("é".repeat(49))); // 100 bytes: within the bound
    await expect(until(a!.refetch(req))).resolves.toMatchObject({ status: "success", data: "é".repeat(49) });
    c.destroy();
  });

  it("a Content-Length within the bound does not vouch for the body: a custom fetch whose header understates it cannot pass the bound", async () => {
    const c = cluster(1, { maxResultBytes: 100 });
    const [a] = c.stores;
    const within = JSON.stringify("é".repeat(49)); // 100 bytes
    c.host.auto = (call) => void call.respondRaw(200, within, { "content-length": "100" });
    await expect(until(a!.ensure(req))).resolves.toMatchObject({ status: "success", data: "é".repeat(49) });
    const over = JSON.stringify("é".repeat(50)); // 102 bytes, declared as 50
    c.host.auto = (call) => void call.respondRaw(200, over, { "content-length": "50" });
    const snap = await until(a!.refetch(req));
    expect(snap.error).toEqual({
      message: `result cannot be shared: the response to GET ${URL_A} is more than maxResultBytes (100 bytes)`,
    });
    expect(snap.data).toBe("é".repeat(49)); // the error never overwrites the result (invariant 6)
    c.destroy();
  });

  it("the default is 1 MiB, exported for the devtools preview and for callers", () => {
    expect(DEFAULT_MAX_RESULT_BYTES).toBe(1_048_576);
    expect(() => createSharedFetchStore({ doc: new Y.Doc(), maxResultBytes: -1 })).toThrow(SharedFetchInputError);
    expect(() => createSharedFetchStore({ doc: new Y.Doc(), maxResultBytes: "big" as unknown as number })).toThrow(
      /maxResultBytes must be a non-negative number, got "big"/,
    );
  });
});
