import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type Snapshot } from "../src/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { internalsOf, ROOT } from "../src/internals.ts";

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
    const c = cluster(2);
    const [a, b] = c.stores;
    const pa = a!.ensure(req);
    await tick(100);
    c.net.isolate(c.docOf(a!)); // a is alive but unreachable: b takes over
    const pb = b!.ensure(req);
    await tick(LEASE + 100);
    c.net.heal();
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "from-b");
    await tick();
    c.host.calls[0]!.respond(200, "from-a");
    await tick();
    await expect(pa).resolves.toMatchObject({ data: "from-b" });
    await expect(pb).resolves.toMatchObject({ data: "from-b" });
    expect(a!.snapshot(req)).toMatchObject({ status: "success", data: "from-b" });
    c.destroy();
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
