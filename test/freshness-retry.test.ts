import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RetryPolicy } from "../src/core/retry.ts";
import { isFresh, meetsDemand, pollWindow } from "../src/core/freshness.ts";
import { validateError, resultValidator, validateJson } from "../src/core/records.ts";
import { internalsOf } from "../src/internals.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };
const retries = (n: number, delay: number): RetryPolicy => ({ retry: (count) => count < n, delayMs: () => delay });

describe("freshness rules (pure)", () => {
  it("a record is fresh while younger than the window; one without `at` is never fresh", () => {
    expect(isFresh(1000, 1999, 1000)).toBe(true);
    expect(isFresh(1000, 2000, 1000)).toBe(false);
    expect(isFresh(undefined, 0, Infinity)).toBe(false);
    expect(isFresh(0, 1e15, Infinity)).toBe(true);
  });
  it("the latest outcome decides: an error newer than the result is what is judged", () => {
    const result = { rev: 1, data: 1, at: 900 };
    expect(meetsDemand(result, { rev: 2, message: "x" }, 1000, 500, (r) => r.at)).toBe(false);
    expect(meetsDemand(result, { rev: 2, message: "x", at: 950 }, 1000, 500, (r) => r.at)).toBe(true);
    expect(meetsDemand(result, { rev: 1, message: "x" }, 1000, 500, (r) => r.at)).toBe(true);
  });
  it("a poll window stops just short of its interval", () => {
    expect(pollWindow(10_000)).toBe(9975);
    expect(pollWindow(100)).toBe(95);
  });
  it("invariant 14: a peer's `at` must be a finite number", () => {
    const validate = resultValidator(validateJson);
    expect(validate({ rev: 1, data: 1, at: "yesterday" })).toBe("result.at is not a finite number");
    expect(validate({ rev: 1, data: 1, at: Infinity })).toBe("result.at is not a finite number");
    expect(validate({ rev: 1, data: 1, at: 5 })).toEqual({ rev: 1, data: 1, at: 5 });
    expect(validateError({ rev: 1, message: "m", at: NaN })).toBe("error.at is not a finite number");
  });
  it("invariant 14: a peer's `done` (when it wrote the outcome) must be a finite number too", () => {
    const validate = resultValidator(validateJson);
    expect(validate({ rev: 1, data: 1, at: 5, done: "later" })).toBe("result.done is not a finite number");
    expect(validateError({ rev: 1, message: "m", done: -Infinity })).toBe("error.done is not a finite number");
    expect(validate({ rev: 1, data: 1, at: 5, done: 9 })).toEqual({ rev: 1, data: 1, at: 5, done: 9 });
  });
});

describe("store.ensure with maxAgeMs: a freshness demand met by any replica's recent result", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a result younger than the window is reused across replicas; an older one is refetched once for all", async () => {
    const c = cluster(3);
    const [a, b, d] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: c.host.calls.length } });
    await until(a!.ensure(req));
    await tick(4000);
    // B's demand (5 s) is met by A's 4 s old result: no request.
    expect(await until(b!.ensure(req, { maxAgeMs: 5000 }))).toMatchObject({ data: { n: 1 } });
    expect(c.host.calls).toHaveLength(1);
    await tick(2000);
    // Now 6 s old: B and D demand 5 s at once → one new revision, joined by both.
    c.host.auto = undefined;
    const both = [b!.ensure(req, { maxAgeMs: 5000 }), d!.ensure(req, { maxAgeMs: 5000 })];
    await tick(100);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, { n: 2 });
    for (const s of await until(Promise.all(both))) expect(s).toMatchObject({ status: "success", data: { n: 2 } });
    const info = a!.resultInfo(req)!;
    expect(info.rev).toBe(2);
    expect(Date.now() - info.at!).toBeLessThan(200);
    c.destroy();
  });

  it("a record with no `at` (written before ages were kept) is revalidated by a demand, shown meanwhile", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const key = a!.keyOf(req);
    c.docOf(a!).transact(() => internalsOf(a!).records.results.set(key, { rev: 1, data: { old: true } }));
    const wait = a!.ensure(req, { maxAgeMs: 60_000 });
    await tick(100);
    expect(a!.snapshot(req)).toMatchObject({ status: "pending", data: { old: true } });
    c.host.calls[0]!.respond(200, { old: false });
    expect(await until(wait)).toMatchObject({ status: "success", data: { old: false } });
    c.destroy();
  });
});

describe("a result's `at` is when its request was sent (the data is no older)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());
  const MIN = 60_000;

  it("a replica that waited 10 min on a live claim, then took it over, records its own request's time: fresh for a 1 min demand", async () => {
    const c = cluster(3, { leaseMs: 1000 });
    const [a, b, d] = c.stores;
    background(a!.ensure(req)); // the host hangs; a heartbeats: slow, not dead
    await tick(50);
    const waited = b!.ensure(req);
    await tick(10 * MIN);
    expect(c.host.calls).toHaveLength(1);
    c.crash(a!);
    await tick(3000);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "fresh");
    await expect(until(waited)).resolves.toEqual({ status: "success", data: "fresh" });
    expect(Date.now() - b!.resultInfo(req)!.at!).toBeLessThan(5000);
    // A third replica's demand for data at most a minute old is met without a request.
    await expect(until(d!.ensure(req, { maxAgeMs: MIN }))).resolves.toEqual({ status: "success", data: "fresh" });
    expect(c.host.calls).toHaveLength(2);
  });

  it("a replica that only showed the key for an hour, then finished abandoned work, dates it now", async () => {
    const c = cluster(2, { leaseMs: 1000 });
    const [a, b] = c.stores;
    const off = b!.subscribe(req, () => {});
    await tick(60 * MIN);
    background(a!.ensure(req));
    await tick(50);
    c.crash(a!);
    await tick(3000);
    expect(c.host.calls).toHaveLength(2);
    const sentAt = Date.now();
    c.host.calls[1]!.respond(200, "fresh");
    await tick(50);
    expect(b!.resultInfo(req)!.at).toBeLessThanOrEqual(sentAt);
    expect(sentAt - b!.resultInfo(req)!.at!).toBeLessThan(5000);
    off();
  });

  it("after retries, the last attempt's time", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const done = a!.ensure(req, { retry: retries(1, 30_000) });
    await tick(100);
    c.host.calls[0]!.respond(500, "down");
    await tick(30_000);
    expect(c.host.calls).toHaveLength(2);
    const secondSent = Date.now();
    c.host.calls[1]!.respond(200, "up");
    await until(done);
    expect(secondSent - a!.resultInfo(req)!.at!).toBeLessThan(1000);
  });
});

describe("retries inside the claim (retry.ts)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("one sequence of attempts by the claimant; others pending throughout; the error recorded once, after the last", async () => {
    const c = cluster(3);
    const [a, b, d] = c.stores;
    c.host.auto = () => ({ status: 503, body: "busy" });
    const seen: string[] = [];
    b!.subscribe(req, () => seen.push(b!.snapshot(req).status));
    const waits = [a!.ensure(req, { retry: retries(2, 1000) }), b!.ensure(req, { retry: retries(2, 1000) }), d!.ensure(req)];
    await tick(100);
    await tick(1000);
    expect(c.host.calls).toHaveLength(2);
    expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { mine: false } });
    expect(internalsOf(b!).records.errors.get(b!.keyOf(req))).toBeUndefined();
    await tick(1000);
    const outcomes = await until(Promise.all(waits));
    expect(c.host.calls).toHaveLength(3);
    for (const s of outcomes) expect(s).toMatchObject({ status: "error", error: { status: 503 } });
    expect(seen.filter((s) => s !== "pending")).toEqual(["error"]);
    c.destroy();
  });

  it("invariant 7: a refetch that fails through every retry keeps the recorded result", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { v: 1 } });
    await until(a!.ensure(req));
    c.host.auto = () => ({ status: 500, body: "down" });
    const after = await until(b!.refetch(req, { retry: retries(3, 10) }));
    expect(c.host.calls).toHaveLength(5);
    expect(after).toMatchObject({ status: "error", data: { v: 1 } });
    c.destroy();
  });

  it("aborting during the pause between attempts sends nothing more and records nothing", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 500, body: "down" });
    const controller = new AbortController();
    const wait = background(a!.ensure(req, { signal: controller.signal, retry: retries(5, 10_000) }));
    await tick(100);
    controller.abort();
    await expect(wait).rejects.toThrow(/abort/i);
    await tick(60_000);
    expect(c.host.calls).toHaveLength(1);
    expect(a!.snapshot(req).status).toBe("idle");
    c.destroy();
  });
});
