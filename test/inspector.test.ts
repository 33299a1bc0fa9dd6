import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchInputError } from "../src/index.ts";
import { internalsOf, ROOT } from "../src/internals.ts";
import { registerConnector } from "../src/core/connectors.ts";
import { Liveness, MAX_OBSERVED_LEASE_MS } from "../src/core/liveness.ts";
import { Host } from "../sim/host.ts";
import { background, cluster, tick, until, URL_A, useFakeClock, twoTabs } from "./harness/replicas.ts";

const LEASE = 5000;
const req = { url: URL_A };

describe("the inspector: the store's own verdicts, one staleness model (invariant 3)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a foreign claim turns stale with reason 'lease-silence' at the moment the store takes it over", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    const waiting = b!.ensure(req);
    c.crash(a!);
    await tick(LEASE - 200);
    expect(b!.inspect().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: false, holder: "other replica", kind: "fetch" });
    expect(c.host.calls).toHaveLength(1);
    await tick(200);
    // Taken over: the claim is now b's own, and the panel saw a's go stale for the reason b acted on.
    expect(c.host.calls).toHaveLength(2);
    const claim = b!.inspect().keys[0]!.claim!;
    expect(claim).toMatchObject({ replicaId: b!.replicaId, mine: true, holder: "this replica", stale: false });
    c.host.calls[1]!.respond(200, "b");
    await until(waiting);
    c.destroy();
  });

  it("reason 'lock-released': a crashed tab of the same browser, and its replica shown departed", async () => {
    const { locks, c, a, b } = await twoTabs({ settleMs: 0 });
    background(a.ensure(req));
    await tick(10);
    expect(b.inspect().keys[0]!.claim).toMatchObject({ holder: "same browser", stale: false, exact: true });
    b.subscribe(req, () => {}); // b shows the key: it must finish the abandoned work
    c.crash(a);
    let seen: unknown;
    const off = b.onInspect(() => (seen ??= b.inspect().keys[0]!.claim));
    locks.crash("a");
    await tick(1);
    expect(seen).toMatchObject({ replicaId: a.replicaId, stale: true, reason: "lock-released" });
    expect(b.inspect().replicas.find((r) => r.replicaId === a.replicaId)).toMatchObject({ departed: "lock-released" });
    off();
    c.destroy();
  });

  it("reason 'abandoned': a page that went away marked its claim", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    const { records } = internalsOf(a!);
    const claim = records.claims.get(b!.keyOf(req))!;
    records.doc.transact(() => records.claims.set(b!.keyOf(req), { ...claim, abandoned: true }));
    await tick();
    expect(b!.inspect().keys[0]!.claim).toMatchObject({ stale: true, reason: "abandoned", abandoned: true });
    c.destroy();
  });
});

describe("the inspector is read-only: what claims() and inspect() hand out cannot change the store's verdicts (invariant 3)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  /** Tries to write into whatever a read handed out; a frozen object refuses (strict mode throws). */
  const scribble = (target: object, fields: Record<string, unknown>) => {
    for (const [field, value] of Object.entries(fields))
      try {
        (target as Record<string, unknown>)[field] = value;
      } catch {
        // refused: what the contract asks
      }
  };

  it("a caller that writes into claims() or inspect() leaves the store's claim, verdict and waiting as they were", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req));
    await tick(100);
    const waiting = b!.ensure(req);
    await tick(10);
    const before = b!.inspect().keys[0]!.claim;
    expect(before).toMatchObject({ replicaId: a!.replicaId, rev: 1, stale: false });

    // An app or a panel that writes into what it read: a forged takeover, a foreign death.
    const forged = { replicaId: "nobody", rev: 99, abandoned: true, leaseMs: 1 };
    scribble(b!.claims()[0]![1], forged);
    scribble(b!.inspect().keys[0]!.claim!, { ...forged, stale: true });

    expect(b!.claims()[0]![1]).toMatchObject({ replicaId: a!.replicaId, rev: 1, leaseMs: LEASE });
    expect(b!.claims()[0]![1].abandoned).toBeUndefined();
    expect(b!.inspect().keys[0]!.claim).toEqual(before);
    expect(b!.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
    await tick(LEASE / 2);
    expect(c.host.calls).toHaveLength(1); // b still waits on a's live claim: no takeover
    c.host.calls[0]!.respond(200, "a");
    await expect(until(waiting)).resolves.toMatchObject({ status: "success", data: "a" });
  });

  it("a caller that writes into malformed() or inspect().malformed leaves the store's list as the doc says (invariant 14)", () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: new Host().fetch, locks: null });
    const lane = new Y.Array<unknown>();
    lane.push([{ t: "results", k: "k1", v: { rev: "one" }, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
    const listed = () => store.malformed().map(({ map, key, reason }) => ({ map, key, reason }));
    const before = listed();
    expect(before).toEqual([{ map: "results", key: "k1", reason: expect.stringContaining("result.rev") }]);

    // A panel or an app that writes into what it read: another key, another reason.
    scribble(store.malformed()[0]!, { key: "k2", map: "lanes", reason: "forged" });
    scribble(store.inspect().malformed[0]!, { key: "k3", reason: "forged too" });

    expect(listed()).toEqual(before);
    expect(store.inspect().malformed.map(({ map, key, reason }) => ({ map, key, reason }))).toEqual(before);
    store.destroy();
  });
});

describe("forged claims and bounds (issue: hardening)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a forged claim naming a live replica does not block its key: heartbeats vouch only for claims they name, and the named replica disowns it", async () => {
    const c = cluster(3, { settleMs: 20 });
    const [a, b, forger] = c.stores;
    // a works on its own slow request: it heartbeats the whole time.
    background(a!.ensure({ url: `${URL_A}/slow` }));
    await tick(100);
    const key = b!.keyOf(req);
    const { records } = internalsOf(forger!);
    records.doc.transact(() => records.claims.set(key, { replicaId: a!.replicaId, nonce: "forged", rev: 1, leaseMs: LEASE }));
    await tick();
    const p = b!.ensure(req);
    await tick(50);
    // a saw a claim under its id that it never made: marked abandoned, so b takes over at once.
    expect(c.host.calls.map((call) => call.url)).toEqual([`${URL_A}/slow`, URL_A]);
    c.host.calls[1]!.respond(200, "ok");
    await expect(until(p)).resolves.toMatchObject({ status: "success", data: "ok" });
    c.destroy();
  });

  it("a heartbeat vouches only for the claims it names: a forged nonce under a live replica's id goes stale by silence", () => {
    // Silence is measured on the replica's monotonic clock: here the wall clock and it agree.
    let clock = 0;
    const at = (t: number) => (clock = t);
    const liveness = new Liveness(() => clock);
    const forged = { replicaId: "A", nonce: "forged", rev: 1, leaseMs: LEASE };
    const real = { replicaId: "A", nonce: "real", rev: 1, leaseMs: LEASE };
    at(0);
    liveness.seeClaim("k1", forged);
    liveness.seeClaim("k2", real);
    for (let n = 1, t = 1000; t <= 3 * LEASE; n++, t += 1000) {
      at(t);
      liveness.seeBeat("A", { n, nonces: ["real"] });
    }
    expect(liveness.verdict("k2", real, at(3 * LEASE))).toMatchObject({ stale: false });
    expect(liveness.verdict("k1", forged, at(3 * LEASE))).toMatchObject({ stale: true, reason: "lease-silence" });
    // A peer's claim cannot ask to be believed for a week: the observer bounds the lease.
    const greedy = { replicaId: "B", nonce: "g", rev: 1, leaseMs: 7 * 24 * 3600_000 };
    at(0);
    liveness.seeClaim("k3", greedy);
    expect(liveness.verdict("k3", greedy, at(MAX_OBSERVED_LEASE_MS))).toMatchObject({ stale: true, leaseMs: MAX_OBSERVED_LEASE_MS });
  });

  it("a lease beyond the bound an observer would believe is refused where it is given; a bad signal is a SharedFetchInputError", async () => {
    const doc = new Y.Doc();
    expect(() => createSharedFetchStore({ doc, leaseMs: 8 * 24 * 3600_000, fetch: new Host().fetch })).toThrow(
      /leaseMs must be a positive number at most 600000, got 691200000/,
    );
    const store = createSharedFetchStore({ doc, fetch: new Host().fetch, settleMs: 0 });
    await expect(store.ensure(req, { leaseMs: 1e12 })).rejects.toThrow(SharedFetchInputError);
    await expect(store.ensure(req, { signal: "nope" as unknown as AbortSignal })).rejects.toThrow(
      /signal must be an AbortSignal, got "nope"/,
    );
    await expect(store.ensure(req, { signal: "nope" as unknown as AbortSignal })).rejects.toBeInstanceOf(SharedFetchInputError);
    expect(store.claims()).toEqual([]);
    store.destroy();
  });
});

describe("the inspector lists what this replica works on before the doc holds anything of it (invariant 8)", () => {
  it("a key asked while the doc's initial sync is still under way shows as this replica's waiting work", async () => {
    const doc = new Y.Doc();
    let synced!: () => void;
    const unregister = registerConnector(doc, { whenSynced: new Promise<void>((r) => (synced = r)), crossDevice: false });
    const host = new Host();
    host.auto = () => ({ status: 200, body: "x" });
    const store = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 });
    const answer = store.ensure(req);
    await Promise.resolve();
    expect(host.calls).toHaveLength(0); // the first claim waits for the sync
    expect(store.inspect().keys).toEqual([
      expect.objectContaining({ key: store.keyOf(req), kind: "fetch", local: expect.objectContaining({ waiters: 1 }) }),
    ]);
    synced();
    await expect(answer).resolves.toMatchObject({ status: "success" });
    store.destroy();
    unregister();
  });
});
