import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type Snapshot } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { internalsOf, ROOT } from "../src/internals.ts";
import type { StoreEvent } from "../src/core/events.ts";
import { openDocRecords } from "../src/core/doc-records.ts";
import { writeOutcome } from "../src/core/writeback.ts";

const LEASE = 5000;
const req = { url: URL_A };

function record(store: { subscribe(r: typeof req, l: () => void): () => void; snapshot(r: typeof req): Snapshot }): Snapshot[] {
  const seen: Snapshot[] = [store.snapshot(req)];
  store.subscribe(req, () => seen.push(store.snapshot(req)));
  return seen;
}

describe("claims and leases", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("invariant 1: a claim is a lease, not a timeout — nothing aborts a request because time passed", async () => {
    const c = cluster(2);
    const [a] = c.stores;
    const done = a!.ensure(req);
    await tick(100);
    await tick(LEASE * 20);
    expect(c.host.calls).toHaveLength(1);
    expect(c.host.calls[0]!.aborted).toBe(false);
    c.host.calls[0]!.respond(200, { late: true });
    await expect(done).resolves.toMatchObject({ status: "success", data: { late: true } });
    c.destroy();
  });

  it("invariant 2: a replica never judges its own work by the clock (slow result outliving the bound is published)", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const done = a!.ensure(req);
    await tick(LEASE * 10);
    expect(a!.snapshot(req)).toMatchObject({ status: "pending", claim: { mine: true, stale: false } });
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(200, [1, 2, 3]);
    await expect(done).resolves.toMatchObject({ status: "success", data: [1, 2, 3] });
    c.destroy();
  });

  it("invariant 3: only foreign claims go stale, by silence measured on the observer's clock", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!); // a's heartbeats no longer reach b
    const waiting = b!.ensure(req);
    await tick(LEASE - 200);
    expect(b!.snapshot(req).claim).toMatchObject({ mine: false, stale: false });
    expect(c.host.calls).toHaveLength(1);
    await tick(300);
    // b took over; a's own snapshot still shows its own work as live (never judged by a's clock)
    expect(a!.snapshot(req).claim).toMatchObject({ mine: true, stale: false });
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "ok");
    await expect(waiting).resolves.toMatchObject({ status: "success", data: "ok" });
    c.destroy();
  });

  it("invariant 3: a step of the observer's wall clock (NTP, set by hand, a VM resumed) is no silence: a live claim is not taken over", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    const waiting = b!.ensure(req);
    await tick(LEASE / 2);
    // Ten minutes forward on the wall clock; a heartbeats on, as its timers do.
    vi.setSystemTime(Date.now() + 10 * 60_000);
    // A component mounts before a's next heartbeat: b decides the key again now.
    const off = b!.subscribe(req, () => {});
    await tick(LEASE * 3);
    off();
    expect(b!.snapshot(req).claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(200, "once");
    await expect(waiting).resolves.toMatchObject({ data: "once" });
    c.destroy();
  });

  it("invariant 3: a step back of the observer's wall clock does not stretch a silent claimant's lease", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!);
    const waiting = b!.ensure(req);
    await tick(LEASE / 2);
    vi.setSystemTime(Date.now() - 10 * 60_000);
    await tick(LEASE / 2 + 200);
    // One lease of silence as it passed, not ten minutes more.
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "taken over");
    await expect(waiting).resolves.toMatchObject({ data: "taken over" });
    c.destroy();
  });

  it("invariant 3: a doc loaded cold starts its own observation window (no instant takeover, no never)", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!);
    // Long after the claim was written, a new replica loads the doc: it must wait one lease from now.
    await tick(LEASE * 3);
    const b = c.join({}, c.docOf(a!));
    const waiting = b.ensure(req);
    await tick(LEASE - 100);
    expect(c.host.calls).toHaveLength(1);
    await tick(200);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, 7);
    await expect(waiting).resolves.toMatchObject({ data: 7 });
    c.destroy();
  });

  it("invariant 3: skew-safe — a peer's wall-clock timestamps never decide staleness", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const key = a!.keyOf(req);
    // Claims from peers whose clocks are an hour behind and an hour ahead, carrying their own times.
    const claim = (replicaId: string, skew: number) => ({
      replicaId,
      nonce: `n-${replicaId}`,
      rev: 1,
      leaseMs: LEASE,
      at: Date.now() + skew,
      lastActivity: Date.now() + skew,
    });
    internalsOf(a!).records.claims.set(key, claim("behind", -3600_000));
    const waiting = b!.ensure(req);
    await tick(LEASE - 100);
    expect(c.host.calls).toHaveLength(0); // an hour-old timestamp did not make it stale at once
    expect(b!.snapshot(req).claim).toMatchObject({ replicaId: "behind", stale: false });
    await tick(200);
    expect(c.host.calls).toHaveLength(1); // one lease of silence on b's clock did
    c.host.calls[0]!.respond(200, "b");
    await waiting;
    const other = { url: `${URL_A}?other` };
    internalsOf(a!).records.claims.set(a!.keyOf(other), claim("ahead", 3600_000));
    background(b!.ensure(other));
    await tick(LEASE + 100);
    expect(c.host.calls).toHaveLength(2); // a timestamp in the future did not keep it alive
    c.destroy();
  });

  it("invariant 4: takeover is one atomic rewrite — no observer sees 'not pending, no result'", async () => {
    const c = cluster(3);
    const [a, b, watcher] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    const seen = record(watcher!);
    // The key's claimant as the watcher saw it after each change of its doc (asks and beats change it too).
    const claimant = () => watcher!.claims().find(([k]) => k === watcher!.keyOf(req))?.[1].replicaId;
    const claimsSeen: (string | undefined)[] = [claimant()];
    c.docOf(watcher!)
      .getArray(ROOT)
      .observeDeep(() => {
        if (claimant() !== claimsSeen.at(-1)) claimsSeen.push(claimant());
      });
    c.crash(a!);
    const waiting = b!.ensure(req);
    await tick(LEASE + 100);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "b");
    await until(waiting);
    await tick();
    // a's claim became another replica's in one step (b's, or the watcher's: it shows the key, so it
    // finishes abandoned work too), never "no claim"
    expect(claimsSeen[0]).toBe(a!.replicaId);
    expect([b!.replicaId, watcher!.replicaId]).toContain(claimsSeen[1]);
    const statuses = seen.map((s) => s.status);
    expect(statuses[0]).toBe("pending");
    expect(statuses.at(-1)).toBe("success");
    expect(seen.filter((s) => s.status !== "pending" && s.data === undefined)).toEqual([]);
    c.destroy();
  });

  it("invariant 5: teardown releases its own claim (release on stop)", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const p = a!.ensure(req);
    p.catch(() => {});
    await tick(100);
    expect(b!.claims()).toHaveLength(1);
    a!.destroy();
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    expect(c.host.calls[0]!.aborted).toBe(true);
    expect(b!.claims()).toHaveLength(0);
    expect(b!.snapshot(req).status).toBe("idle");
    c.destroy();
  });

  it("invariant 5: teardown leaves alone a claim another replica took over (the seed's untested case)", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    c.net.isolate(c.docOf(a!));
    const waiting = b!.ensure(req);
    await tick(LEASE + 100);
    expect(c.host.calls).toHaveLength(2); // b took over during the partition
    c.net.heal();
    await tick();
    expect(a!.claims()[0]![1].replicaId).toBe(b!.replicaId);
    a!.destroy();
    await tick();
    expect(b!.claims().map(([, claim]) => claim.replicaId)).toEqual([b!.replicaId]);
    expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { mine: true } });
    c.host.calls[1]!.respond(200, "kept");
    await expect(waiting).resolves.toMatchObject({ status: "success", data: "kept" });
    c.destroy();
  });

  it("invariant 6: writebacks are gated on inputs — after a takeover the first one home counts, the second is dropped", async () => {
    const { c, a, pa, pb } = await takenOver(); // a is alive but unreachable: b takes over
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "from-b");
    await tick();
    c.host.calls[0]!.respond(200, "from-a");
    await tick();
    await expect(pa).resolves.toMatchObject({ data: "from-b" });
    await expect(pb).resolves.toMatchObject({ data: "from-b" });
    expect(a.snapshot(req)).toMatchObject({ status: "success", data: "from-b" });
    c.destroy();
  });

  /**
   * The telling case for invariant 6 (the test above lets the new claimant answer first, which a
   * claim-gated writeback would also pass): after the takeover the claim in the doc is b's, yet
   * the original claimant a comes home first. Its result is for the same key and revision, so it
   * is recorded; b's copy of that revision is then moot and never replaces it.
   */
  async function takenOver() {
    const c = cluster(2);
    const [a, b] = c.stores;
    const events: { a: StoreEvent[]; b: StoreEvent[] } = { a: [], b: [] };
    a!.onEvent((e) => events.a.push(e));
    b!.onEvent((e) => events.b.push(e));
    const pa = a!.ensure(req);
    await tick(100);
    c.net.isolate(c.docOf(a!)); // a is alive but unreachable: b takes over
    const pb = b!.ensure(req);
    await tick(LEASE + 100);
    c.net.heal();
    await tick();
    expect(c.host.calls).toHaveLength(2);
    // Both replicas now read b's claim: a works on without the claim.
    for (const store of [a!, b!]) expect(store.claims().map(([, claim]) => claim.replicaId)).toEqual([b!.replicaId]);
    expect(events.b).toContainEqual(expect.objectContaining({ type: "claimed", rev: 1, takeoverOf: a!.replicaId }));
    return { c, a: a!, b: b!, pa, pb, events };
  }

  it("invariant 6: after a takeover the ORIGINAL claimant, home first, is recorded; the new claimant's copy of that revision is dropped", async () => {
    const { c, a, b, pa, pb, events } = await takenOver();
    c.host.calls[0]!.respond(200, "from-a"); // a's request, under a claim that is no longer a's
    await tick();
    for (const store of [a, b]) {
      expect(store.snapshot(req)).toEqual({ status: "success", data: "from-a" });
      expect(store.inspect().keys[0]!.result).toEqual({ rev: 1, data: "from-a", by: a.replicaId });
    }
    expect(events.a).toContainEqual({ type: "settled", kind: "fetch", key: a.keyOf(req), rev: 1, outcome: "result", written: true });
    // b's copy is moot: aborted on the network (its answer can never come home), quietly — no error.
    expect(events.b).toContainEqual({ type: "aborted", kind: "fetch", key: b.keyOf(req), rev: 1, reason: "superseded" });
    expect(c.host.calls[1]!.aborted).toBe(true);
    c.host.calls[1]!.respond(200, "from-b");
    await tick(LEASE * 2);
    await expect(pa).resolves.toEqual({ status: "success", data: "from-a" });
    await expect(pb).resolves.toEqual({ status: "success", data: "from-a" });
    for (const store of [a, b]) {
      expect(store.snapshot(req)).toEqual({ status: "success", data: "from-a" });
      expect(store.inspect().keys[0]).toMatchObject({ recorded: 1, result: { rev: 1, data: "from-a", by: a.replicaId } });
      expect(store.inspect().keys[0]!.error).toBeUndefined();
      expect(store.claims()).toEqual([]);
    }
    expect(c.host.calls).toHaveLength(2);
  });

  it("invariant 6: both copies answer in the same tick after a takeover: the original's result counts, the new claimant's writeback of the same revision is dropped", async () => {
    const { c, a, b, pa, pb, events } = await takenOver();
    // b's answer reaches b before b has decided anything about a's result: its writeback runs and is refused.
    c.host.calls[0]!.respond(200, "from-a");
    c.host.calls[1]!.respond(200, "from-b");
    await tick();
    expect(events.a).toContainEqual({ type: "settled", kind: "fetch", key: a.keyOf(req), rev: 1, outcome: "result", written: true });
    expect(events.b).toContainEqual({ type: "settled", kind: "fetch", key: b.keyOf(req), rev: 1, outcome: "result", written: false });
    await expect(pa).resolves.toEqual({ status: "success", data: "from-a" });
    await expect(pb).resolves.toEqual({ status: "success", data: "from-a" });
    for (const store of [a, b]) {
      expect(store.inspect().keys[0]).toMatchObject({ recorded: 1, result: { rev: 1, data: "from-a", by: a.replicaId } });
      expect(store.inspect().keys[0]!.error).toBeUndefined();
      // b released its claim with its (dropped) writeback: nothing stands, nothing is pending.
      expect(store.claims()).toEqual([]);
    }
  });

  it("invariant 6: the writeback rule — recorded whoever holds the claim; a second outcome at a recorded revision is dropped; a newer revision is recorded", () => {
    const records = openDocRecords(new Y.Doc(), () => null);
    const key = "k";
    const outcome = (data: unknown) => ({ ok: true as const, data });
    // The claim stands for b (a takeover); a's outcome for the same key and revision still counts.
    records.claims.set(key, { replicaId: "b", nonce: "nb", rev: 1, leaseMs: LEASE });
    expect(writeOutcome(records, records.results, { key, rev: 1, label: "GET x", outcome: outcome("from-a"), by: "a" })).toBe(true);
    expect(records.results.get(key)).toMatchObject({ rev: 1, data: "from-a", by: "a" });
    // The second one home for that revision is dropped quietly, result or error alike.
    expect(writeOutcome(records, records.results, { key, rev: 1, label: "GET x", outcome: outcome("from-b"), by: "b" })).toBe(false);
    const failed = { ok: false as const, error: { message: "HTTP 429", status: 429 } };
    expect(writeOutcome(records, records.results, { key, rev: 1, label: "GET x", outcome: failed, by: "b" })).toBe(false);
    expect(records.results.get(key)).toMatchObject({ rev: 1, data: "from-a", by: "a" });
    expect(records.errors.get(key)).toBeUndefined();
    // An older revision is dropped too; a newer one (a refetch) is recorded.
    records.results.set(key, { rev: 3, data: "r3" });
    expect(writeOutcome(records, records.results, { key, rev: 2, label: "GET x", outcome: outcome("old"), by: "b" })).toBe(false);
    expect(writeOutcome(records, records.results, { key, rev: 4, label: "GET x", outcome: outcome("r4"), by: "b" })).toBe(true);
    expect(records.results.get(key)).toMatchObject({ rev: 4, data: "r4" });
    records.destroy();
  });

  it("concurrent claims before sync: the settle window makes one replica yield", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.net.delayMs = 5; // both claim before either hears of the other
    const pa = a!.ensure(req);
    const pb = b!.ensure(req);
    await tick(100);
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(200, 1);
    await tick(10);
    await expect(Promise.all([pa, pb])).resolves.toMatchObject([{ data: 1 }, { data: 1 }]);
    c.destroy();
  });

  it("store creation writes nothing, and an idle store never writes", async () => {
    const doc = new Y.Doc();
    const updates: Uint8Array[] = [];
    doc.on("update", (u: Uint8Array) => updates.push(u));
    const store = createSharedFetchStore({ doc, fetch: () => Promise.reject(new Error("unused")) });
    store.snapshot(req);
    store.subscribe(req, () => {})();
    await tick(60_000);
    expect(updates).toHaveLength(0);
    store.destroy();
  });
});
