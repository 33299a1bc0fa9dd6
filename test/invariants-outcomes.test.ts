import type { HostCall } from "../sim/host.ts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import type { SharedFetchStoreWithExtras, Snapshot } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { internalsOf, ROOT } from "../src/internals.ts";

const LEASE = 5000;
const req = { url: URL_A };

describe("outcomes, pending, heartbeats, cancellation, secrets", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("invariant 7: an error never erases a result — a failing duplicate after a takeover leaves the result", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.net.isolate(c.docOf(a!));
    const pb = b!.ensure(req);
    await tick(LEASE + 100);
    c.net.heal();
    c.host.calls[1]!.respond(200, { good: true });
    await pb;
    c.host.calls[0]!.respond(429, { error: "duplicate" }); // the duplicate is rate-limited
    await tick();
    for (const s of [a!, b!]) expect(s.snapshot(req)).toEqual({ status: "success", data: { good: true } });
    c.destroy();
  });

  it("invariant 7: a failed refetch keeps the data and records the error beside it", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { v: 1 } });
    await until(a!.ensure(req));
    c.host.auto = () => ({ status: 503, body: "busy" });
    const after = await until(b!.refetch(req));
    expect(after).toMatchObject({ status: "error", data: { v: 1 }, error: { status: 503 } });
    expect(after.error!.message).toContain("503");
    expect(a!.snapshot(req)).toEqual(after);
    c.host.auto = () => ({ status: 200, body: { v: 2 } });
    await expect(until(a!.refetch(req))).resolves.toEqual({ status: "success", data: { v: 2 } });
    expect(c.host.calls.map((call) => call.headers["idempotency-key"])).toEqual([undefined, undefined, undefined]);
    c.destroy();
  });

  it("invariant 8: pending is truthful — a hung host stays pending across many leases, with one request", async () => {
    const c = cluster(3);
    const seen: Snapshot[][] = c.stores.map((s) => {
      const list: Snapshot[] = [];
      s.subscribe(req, () => list.push(s.snapshot(req)));
      return list;
    });
    const controller = new AbortController();
    const waits = c.stores.map((s, i) => s.ensure(req, i === 0 ? { signal: controller.signal } : {}));
    waits.forEach((w) => w.catch(() => {}));
    for (let i = 0; i < 50; i++) await tick(LEASE);
    expect(c.host.calls).toHaveLength(1);
    for (const s of c.stores) expect(s.snapshot(req)).toMatchObject({ status: "pending", claim: { stale: false } });
    expect(seen.flat().filter((s) => s.status !== "pending")).toEqual([]);
    c.destroy();
  });

  it("invariant 8: idle only when nobody works on the key and nothing is recorded", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    expect(b!.snapshot(req)).toEqual({ status: "idle" });
    const controller = new AbortController();
    const p = a!.ensure(req, { signal: controller.signal });
    p.catch(() => {});
    await tick(100);
    expect(b!.snapshot(req).status).toBe("pending");
    controller.abort();
    await tick();
    expect(b!.snapshot(req)).toEqual({ status: "idle" }); // the claim was released, nothing recorded
    c.destroy();
  });

  it("invariant 9: the bound is armed — crash, then an immediate reload takes over with no other wake-up", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!);
    const reloaded = c.join({}, c.docOf(a!));
    const waiting = reloaded.ensure(req);
    // Nothing else happens in this page: only the armed re-check can wake it.
    await tick(LEASE + 50);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "recovered");
    await expect(waiting).resolves.toMatchObject({ status: "success", data: "recovered" });
    c.destroy();
  });

  it("invariant 10: heartbeats — a slow but healthy request is never duplicated; one liveness record per replica", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const other = { url: `${URL_A}/2` };
    background(a!.ensure(req));
    background(a!.ensure(other));
    await tick(100);
    background(b!.ensure(req));
    background(b!.ensure(other));
    await tick(LEASE * 12);
    expect(c.host.calls).toHaveLength(2);
    expect(internalsOf(b!).records.beats.keys()).toEqual([a!.replicaId]);
    c.host.calls.forEach((call) => call.respond(200, "done"));
    await tick();
    const beatsBefore = Y.encodeStateAsUpdate(c.docOf(b!)).byteLength;
    await tick(LEASE * 10);
    expect(Y.encodeStateAsUpdate(c.docOf(b!)).byteLength).toBe(beatsBefore); // idle: no more heartbeats
    c.destroy();
  });

  /**
   * Invariant 10's rhythm: DESIGN.md says "every `leaseMs/3`", src/core/heartbeat.ts beats every
   * floor(shortest lease in flight / 3) ms. `beatsOf` records, on the observer's (fake) clock, each
   * change of the claimant's heartbeat counter as the observer's doc receives it.
   */
  function beatsOf(observer: SharedFetchStoreWithExtras, claimant: SharedFetchStoreWithExtras): number[] {
    const { beats } = internalsOf(observer).records;
    const seen: number[] = [];
    let last = beats.get(claimant.replicaId)?.n;
    beats.onChange((ids) => {
      const n = beats.get(claimant.replicaId)?.n;
      if (!ids.has(claimant.replicaId) || n === undefined || n === last) return;
      last = n;
      seen.push(Date.now());
    });
    return seen;
  }
  const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);
  /** The observer's verdict on the key's foreign claim, as its engine and the devtools see it. */
  const verdictOn = (observer: SharedFetchStoreWithExtras, r: { url: string }) =>
    observer.inspect().keys.find((k) => k.key === observer.keyOf(r))!.claim!;

  it("invariant 10: a claimant beats every leaseMs/3 (leaseMs 3000: every 1000 ms, never later), and its observer never judges it stale", async () => {
    const lease = 3000;
    const c = cluster(2, { settleMs: 0, leaseMs: lease });
    const [a, b] = c.stores;
    const beats = beatsOf(b!, a!);
    let dispatchedAt = NaN;
    a!.onEvent((e) => {
      if (e.type === "dispatched") dispatchedAt = Date.now();
    });
    background(a!.ensure(req));
    await tick(1);
    expect(c.host.calls).toHaveLength(1);
    const waiting = background(b!.ensure(req));
    // Ten leases of a slow, healthy request, looked at every 50 ms from the observer's side.
    for (let t = 0; t < lease * 10; t += 50) {
      await tick(50);
      const claim = verdictOn(b!, req);
      expect(claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
      // Never more than lease/3 without a sign of life.
      expect(claim.silentMs).toBeLessThanOrEqual(lease / 3);
      expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { mine: false, stale: false } });
    }
    expect(c.host.calls).toHaveLength(1); // never duplicated
    expect(beats[0]! - dispatchedAt).toBe(lease / 3);
    expect(beats.length).toBeGreaterThanOrEqual(29);
    expect(new Set(gaps(beats))).toEqual(new Set([lease / 3]));
    expect(Date.now() - beats.at(-1)!).toBeLessThanOrEqual(lease / 3);
    c.host.calls[0]!.respond(200, "slow but fine");
    await expect(until(waiting)).resolves.toEqual({ status: "success", data: "slow but fine" });
  });

  it("invariant 10: with claims of different leases in flight, the shortest lease sets the rhythm (one record per replica), and neither claim goes stale", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const long = { url: `${URL_A}/long` };
    const short = { url: `${URL_A}/short` };
    const beats = beatsOf(b!, a!);
    background(a!.ensure(long, { leaseMs: 3000 }));
    await tick(1);
    background(b!.ensure(long));
    await tick(3000);
    const alone = beats.length;
    expect(new Set(gaps(beats))).toEqual(new Set([1000]));
    // A second claim with a 900 ms lease: from its dispatch on, one record beats every 300 ms.
    background(a!.ensure(short, { leaseMs: 900 }));
    await tick(1);
    expect(c.host.calls).toHaveLength(2);
    const shortFrom = Date.now();
    background(b!.ensure(short));
    for (let t = 0; t < 6000; t += 50) {
      await tick(50);
      for (const r of [long, short]) {
        const claim = verdictOn(b!, r);
        expect(claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
        expect(claim.silentMs).toBeLessThanOrEqual(300);
      }
    }
    expect(c.host.calls).toHaveLength(2); // the 900 ms claim outlived its lease six times over, never taken over
    expect(internalsOf(b!).records.beats.keys()).toEqual([a!.replicaId]);
    const both = beats.slice(alone).filter((t) => t > shortFrom);
    expect(both.length).toBeGreaterThanOrEqual(19);
    expect(new Set(gaps(both))).toEqual(new Set([300]));
    // The short request ends: the long lease sets the rhythm again.
    c.host.calls[1]!.respond(200, "short done");
    await tick(1);
    const endedAt = Date.now();
    const before = beats.length;
    for (let t = 0; t < 6000; t += 50) {
      await tick(50);
      expect(verdictOn(b!, long)).toMatchObject({ replicaId: a!.replicaId, stale: false });
    }
    const after = beats.slice(before);
    expect(after[0]! - endedAt).toBeLessThanOrEqual(1000);
    expect(new Set(gaps(after))).toEqual(new Set([1000]));
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[0]!.respond(200, "long done");
    await tick(1);
    expect(b!.snapshot(long)).toEqual({ status: "success", data: "long done" });
  });

  it("invariant 11: cancellation reaches the network — the last waiter leaving aborts fetch and releases the claim", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const one = new AbortController();
    const two = new AbortController();
    const p1 = a!.ensure(req, { signal: one.signal });
    const p2 = a!.ensure(req, { signal: two.signal });
    await tick(100);
    one.abort();
    await expect(p1).rejects.toMatchObject({ name: "AbortError" });
    expect(c.host.calls[0]!.aborted).toBe(false); // another waiter of this replica remains
    two.abort();
    await expect(p2).rejects.toMatchObject({ name: "AbortError" });
    expect(c.host.calls[0]!.signal?.aborted).toBe(true);
    expect(b!.claims()).toEqual([]);
    c.destroy();
  });

  it("invariant 11: the request is aborted when the last waiter leaves, even while the key is shown here", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const seen: Snapshot[] = [];
    a!.subscribe(req, () => seen.push(a!.snapshot(req)));
    const controller = new AbortController();
    background(a!.ensure(req, { signal: controller.signal }));
    await tick(100);
    controller.abort();
    await tick();
    expect(c.host.calls[0]!.aborted).toBe(true);
    expect(b!.claims()).toEqual([]);
    expect(seen.at(-1)).toEqual({ status: "idle" });
    c.destroy();
  });

  it("invariant 11: an already-aborted signal rejects at once and writes nothing", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const before = Y.encodeStateAsUpdate(c.docOf(a!)).byteLength;
    await expect(a!.ensure(req, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(Y.encodeStateAsUpdate(c.docOf(a!)).byteLength).toBe(before);
    c.destroy();
  });

  it("invariant 12: non-idempotent requests carry an Idempotency-Key stable per key and revision, the same for a takeover's duplicate", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const post = { url: URL_A, method: "POST", body: '{"order":1}' };
    background(a!.ensure(post));
    await tick(100);
    c.crash(a!);
    const pb = b!.ensure(post);
    await tick(LEASE + 100);
    const [first, duplicate] = c.host.calls;
    const [, hash] = /^([0-9a-f]{64})\.1\.[0-9a-f-]{36}$/.exec(first!.headers["idempotency-key"] ?? "") ?? [];
    expect(hash).toBeDefined();
    expect(duplicate!.headers["idempotency-key"]).toBe(first!.headers["idempotency-key"]); // takeover keeps the revision
    duplicate!.respond(201, { id: 9 });
    await pb;
    c.host.auto = () => ({ status: 201, body: { id: 10 } });
    await until(b!.refetch(post));
    expect(c.host.calls[2]!.headers["idempotency-key"]).toMatch(new RegExp(`^${hash}\\.2\\.[0-9a-f-]{36}$`));
    c.destroy();
  });

  it("invariant 12: a later call whose revision number repeats one the doc no longer remembers gets a key of its own", async () => {
    const post = { url: URL_A, method: "POST", body: '{"order":"milk"}' };
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 201, body: { ok: true } });
    await until(a!.refetch(post));
    await tick(25 * 3600_000); // the retention sweep removes the first call's record
    await until(a!.ensure({ url: `${URL_A}/other` })); // any activity: the store notices and sweeps
    await tick(10);
    await until(a!.refetch(post)); // the same order, a day later: revision 1 again
    // And on a doc that never saw the first (another device, or after clearTabsStorage at logout).
    const fresh = cluster(1);
    fresh.host.auto = () => ({ status: 201, body: { ok: true } });
    await until(fresh.stores[0]!.refetch(post));
    const keys = [...c.host.calls, ...fresh.host.calls]
      .filter((call) => call.method === "POST")
      .map((call) => call.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys.map((key) => key?.split(".")[1])).toEqual(["1", "1", "1"]);
    // A host that keeps idempotency keys for a day or more would drop the new order as a duplicate.
    expect(new Set(keys).size).toBe(3);
    c.destroy();
    fresh.destroy();
  });

  it("invariant 13: nothing secret enters the doc — header values, bodies and query strings stay out", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    await until(
      a!.ensure({
        url: `${URL_A}?token=QUERY-SECRET`,
        method: "POST",
        headers: { Authorization: "Bearer HEADER-SECRET" },
        body: "BODY-SECRET",
      }),
    );
    const doc = c.docOf(a!);
    const text = JSON.stringify(doc.getArray(ROOT).toJSON());
    const bytes = new TextDecoder().decode(Y.encodeStateAsUpdate(doc));
    for (const secret of ["QUERY-SECRET", "HEADER-SECRET", "BODY-SECRET", "token="]) {
      expect(text).not.toContain(secret);
      expect(bytes).not.toContain(secret);
    }
    c.destroy();
  });

  it("invariant 13: identity is part of every key — another user never sees this user's result", async () => {
    const c = cluster(0);
    const alice = c.join({ identity: "alice" });
    const bob = c.join({ identity: "bob" });
    c.host.auto = (call) => ({ status: 200, body: { for: call.headers["x-user"] ?? "?" } });
    await until(alice.ensure(req));
    expect(bob.snapshot(req)).toEqual({ status: "idle" });
    expect(alice.keyOf(req)).not.toBe(bob.keyOf(req));
    c.destroy();
  });
});

describe("invariant 7, the other order: a failing duplicate's error home first does not cost the healthy original", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the original keeps running for the panes that show the key; its result replaces the error everywhere", async () => {
    const c = cluster(2, { settleMs: 20 });
    const [a, b] = c.stores;
    const req = { url: URL_A };
    c.net.isolate(c.docOf(a!)); // a partition: both replicas claim and send the request
    c.net.isolate(c.docOf(b!));
    const offA = a!.subscribe(req, () => {}); // a's pane shows the key
    const pa = a!.ensure(req);
    const pb = b!.ensure(req);
    await tick(50);
    expect(c.host.calls).toHaveLength(2);
    const [fromA, fromB] = c.host.calls as [HostCall, HostCall]; // a asked first: its request went out first
    fromB.respond(429, { error: "duplicate" });
    await tick();
    c.net.heal();
    await tick();
    // The duplicate's error answers both waits, settled; a's snapshot stays pending: its own request runs on.
    const answered = await until(pa);
    expect(answered).toMatchObject({ status: "error", error: { status: 429 } });
    expect(answered.claim).toBeUndefined();
    expect(a!.snapshot(req)).toMatchObject({ status: "pending", error: { status: 429 }, claim: { mine: true } });
    await expect(until(pb)).resolves.toMatchObject({ status: "error", error: { status: 429 } });
    expect(fromA.aborted).toBe(false); // still running for a's pane
    fromA.respond(200, { good: true });
    await tick();
    for (const s of [a!, b!]) expect(s.snapshot(req)).toEqual({ status: "success", data: { good: true } });
    offA();
    c.destroy();
  });
});
