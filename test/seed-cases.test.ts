import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { SharedFetchInputError } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { internalsOf } from "../src/internals.ts";

const LEASE = 5000;
const req = { url: URL_A };

/** The seed note's cases (packages/runner/test/fetch-claim-takeover.test.ts), on this store. */
describe("the seed's claim takeover cases", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("release on stop: an aborted request hands its claim back", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const controller = new AbortController();
    background(a!.ensure(req, { signal: controller.signal }));
    await tick(100);
    expect(b!.claims()).toHaveLength(1);
    controller.abort();
    await tick();
    expect(b!.claims()).toHaveLength(0);
    c.destroy();
  });

  it("error surfaced: a failing host resolves ensure with status error, message and status", async () => {
    const c = cluster(1);
    c.host.auto = () => ({ status: 500, body: { reason: "boom" } });
    const snap = await until(c.stores[0]!.ensure(req));
    expect(snap).toEqual({ status: "error", error: { status: 500, message: expect.stringContaining("HTTP 500") } });
    expect(snap.error!.message).toBe(`HTTP 500 Internal Server Error from GET ${URL_A}`);
    c.destroy();
  });

  it("network failure and unparsable JSON are errors that say so", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = (call) => {
      if (call.url.endsWith("/down")) call.fail(new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") }));
      else call.respondRaw(200, "<html>not json</html>");
      return undefined;
    };
    await expect(until(a!.ensure({ url: `${URL_A}/down` }))).resolves.toMatchObject({
      status: "error",
      error: { message: `GET ${URL_A}/down failed: network error (connection refused)` },
    });
    const bad = await until(a!.ensure({ url: `${URL_A}/html` }));
    expect(bad.error!.message).toBe(`response of GET ${URL_A}/html is not valid JSON (HTTP 200 OK, text/plain)`);
    c.destroy();
  });

  it("empty URL: rejected at once with a clear message, nothing written", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const doc = c.docOf(a!);
    const before = Y.encodeStateAsUpdate(doc).byteLength;
    await expect(a!.ensure({ url: "" })).rejects.toThrow(/url is empty/);
    await expect(a!.ensure({ url: "not a url" })).rejects.toThrow(/"not a url" is not a valid absolute URL/);
    await expect(a!.ensure({ url: "ftp://x/y" })).rejects.toThrow(/protocol ftp:/);
    await expect(a!.ensure({ url: URL_A, method: "BREW" })).rejects.toThrow(/unsupported method "BREW"/);
    await expect(a!.ensure({ url: URL_A, method: "POST", body: { a: 1 } as unknown as string })).rejects.toThrow(SharedFetchInputError);
    await expect(a!.ensure({ url: URL_A, body: "x" })).rejects.toThrow(/GET request cannot carry a body/);
    await expect(a!.refetch({ url: "" })).rejects.toThrow(/url is empty/);
    expect(Y.encodeStateAsUpdate(doc).byteLength).toBe(before);
    expect(c.host.calls).toHaveLength(0);
    c.destroy();
  });

  it("slow result outliving the bound is still published", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const pa = a!.ensure(req);
    await tick(LEASE * 4);
    c.host.calls[0]!.respond(200, "slow");
    await expect(until(pa)).resolves.toMatchObject({ status: "success", data: "slow" });
    expect(b!.snapshot(req)).toEqual({ status: "success", data: "slow" });
    c.destroy();
  });

  it("failed request keeps a result recorded for the same inputs", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.net.isolate(c.docOf(b!));
    const pb = b!.ensure(req);
    await tick(LEASE + 100); // b cannot hear a: takes over and sends the same request
    c.host.calls[0]!.respond(200, { first: true });
    await tick();
    c.net.heal();
    c.host.calls[1]!.respond(502, "bad gateway");
    await expect(until(pb)).resolves.toEqual({ status: "success", data: { first: true } });
    c.destroy();
  });

  it("young claim left alone", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!);
    background(b!.ensure(req));
    await tick(LEASE - 500);
    expect(c.host.calls).toHaveLength(1);
    expect(b!.snapshot(req).claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
    c.destroy();
  });

  it("old claim taken over (at its revision, straight from the old claim)", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!);
    const pb = b!.ensure(req);
    await tick(LEASE + 100);
    expect(b!.claims()[0]![1]).toMatchObject({ replicaId: b!.replicaId, rev: 1 });
    c.host.calls[1]!.respond(200, "taken");
    await expect(until(pb)).resolves.toMatchObject({ data: "taken" });
    c.destroy();
  });

  it("completed guard 1: a leftover claim at or below the recorded revision is finished work, not pending", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: 1 });
    await until(a!.ensure(req));
    const key = a!.keyOf(req);
    internalsOf(a!).records.claims.set(key, { replicaId: "crashed-after-writing", nonce: "n", rev: 1, leaseMs: LEASE });
    await tick();
    expect(a!.snapshot(req)).toEqual({ status: "success", data: 1 });
    await expect(until(a!.ensure(req))).resolves.toEqual({ status: "success", data: 1 });
    expect(c.host.calls).toHaveLength(1);
    c.destroy();
  });

  it("completed guard 2: a writeback older than the recorded revision is dropped", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.net.isolate(c.docOf(a!));
    background(b!.ensure(req));
    await tick(LEASE + 100);
    c.host.calls[1]!.respond(200, "rev1");
    await tick();
    c.host.auto = () => ({ status: 200, body: "rev2" });
    await until(b!.refetch(req));
    c.net.heal();
    c.host.calls[0]!.respond(200, "late rev1"); // a's copy of revision 1 comes home last
    await tick();
    expect(b!.snapshot(req)).toEqual({ status: "success", data: "rev2" });
    expect(a!.snapshot(req)).toEqual({ status: "success", data: "rev2" });
    c.destroy();
  });

  it("completed guard 3: an aborted request writes nothing, even if its response arrives", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    let late: (() => void) | undefined;
    const fetchIgnoringAbort: typeof fetch = () => new Promise((resolve) => (late = () => resolve(new Response('"late"'))));
    const b = c.join({ fetch: fetchIgnoringAbort });
    const controller = new AbortController();
    background(b.ensure(req, { signal: controller.signal }));
    await tick(100);
    controller.abort();
    late!();
    await tick();
    expect(a!.snapshot(req)).toEqual({ status: "idle" });
    c.destroy();
  });
});
