import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeAwarenessStates } from "y-protocols/awareness";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { registerConnector, SYNC_WAIT_MS } from "../../src/core/connectors.ts";
import { REPLICA_LOCK_PREFIX } from "../../src/core/locks.ts";
import { createSharedFetchStore, DEFAULT_SETTLE_MS } from "../../src/index.ts";
import { ROOT, TABLES } from "../../src/internals.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";
import { linkedAwareness } from "./awareness.ts";

const LEASE = 5000;
const req = { url: URL_A };

describe("devtools model", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("another replica's claim shows with mine: false, its label, and its holder among the replicas", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const model = createDevtoolsModel(a!);
    background(b!.ensure(req));
    await tick(100);
    const { keys, replicas } = model.getSnapshot();
    expect(keys).toEqual([expect.objectContaining({ key: a!.keyOf(req), label: "GET https://api.example.test/items", kind: "fetch" })]);
    expect(keys[0]!.claim).toMatchObject({ replicaId: b!.replicaId, mine: false, rev: 1, leaseMs: LEASE, stale: false, finished: false });
    expect(keys[0]!.claim!.holderPresent).toBeUndefined();
    expect(replicas.map((r) => [r.replicaId, r.me, r.claims])).toEqual([
      [a!.replicaId, true, 0],
      [b!.replicaId, false, 1],
    ]);
    c.host.calls[0]!.respond(200, { hello: "world" });
    await tick();
    const done = model.getSnapshot().keys[0]!;
    expect(done.claim).toBeUndefined();
    expect(done.result).toEqual({ rev: 1, bytes: JSON.stringify({ hello: "world" }).length, by: b!.replicaId, at: expect.any(Number) });
    model.destroy();
    c.destroy();
  });

  it("a takeover changes the holder", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const model = createDevtoolsModel(b!);
    background(a!.ensure(req));
    await tick(100);
    c.crash(a!);
    const waiting = b!.ensure(req);
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, mine: false });
    await tick(LEASE + 100);
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: b!.replicaId, mine: true, stale: false });
    expect(model.getSnapshot().events.map((e) => e.event)).toContainEqual(
      expect.objectContaining({ type: "claimed", takeoverOf: a!.replicaId }),
    );
    c.host.calls[1]!.respond(200, 1);
    await until(waiting);
    expect(model.getSnapshot().keys[0]).toMatchObject({ result: { rev: 1 } });
    expect(model.getSnapshot().keys[0]!.claim).toBeUndefined();
    model.destroy();
    c.destroy();
  });

  it("a silent claimant goes stale on the inspected store's own clock when its lease runs out, with no doc change (one staleness model)", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    background(a!.ensure(req)); // b sees the claim now: its silence is measured from here
    await tick(100);
    const model = createDevtoolsModel(b!);
    let notified = 0;
    model.subscribe(() => notified++);
    c.crash(a!);
    await tick(LEASE - 200);
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ leaseExpired: false, stale: false });
    await tick(200);
    expect(notified).toBeGreaterThan(0);
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, leaseExpired: true, stale: true });
    model.destroy();
    c.destroy();
  });

  it("heartbeats keep a slow claimant live and show in its replica row", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const model = createDevtoolsModel(b!);
    background(a!.ensure(req));
    await tick(LEASE * 3);
    const { keys, replicas } = model.getSnapshot();
    expect(keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, leaseExpired: false, stale: false });
    expect(replicas.find((r) => r.replicaId === a!.replicaId)!.heartbeat).toBeGreaterThanOrEqual(8);
    model.destroy();
    c.destroy();
  });

  it("presence: every replica in awareness is listed, and a holder that leaves it is stale at once", async () => {
    const presence = linkedAwareness(3);
    const [awA, awB, awC] = presence.all;
    const c = cluster(0);
    const a = c.join({ awareness: awA! });
    const b = c.join({ awareness: awB! });
    awC!.setLocalStateField("sharedFetch", { replicaId: "idle-peer", browserId: "browser-c" });
    const model = createDevtoolsModel(b, { awareness: awB! });
    background(a.ensure(req));
    await tick(100);
    const others = [
      [a.replicaId, true, undefined],
      ["idle-peer", true, "browser-c"],
    ].sort(([x], [y]) => String(x).localeCompare(String(y)));
    // The inspected replica first, then the others by id.
    expect(model.getSnapshot().replicas.map((r) => [r.replicaId, r.present, r.browserId])).toEqual([
      [b.replicaId, true, undefined],
      ...others,
    ]);
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ holderPresent: true, stale: false });
    c.crash(a);
    removeAwarenessStates(awB!, [awA!.clientID], "server"); // the server relays that A left
    await tick();
    expect(model.getSnapshot().keys[0]!.claim).toMatchObject({
      replicaId: a.replicaId,
      holderPresent: false,
      leaseExpired: false,
      stale: true,
    });
    expect(model.getSnapshot().replicas.find((r) => r.replicaId === a.replicaId)).toMatchObject({ present: false, claims: 1 });
    model.destroy();
    c.destroy();
    presence.destroy();
  });

  it("invariant 14: malformed records show in `malformed`, are never thrown, and leave the rows as they were but for the malformed mark", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "good" });
    await until(a!.ensure(req));
    const model = createDevtoolsModel(a!);
    const before = model.getSnapshot();
    const peer = new Y.Doc();
    c.net.add(peer);
    const lane = new Y.Array<unknown>();
    lane.push([
      null,
      { t: TABLES.claims, k: a!.keyOf(req), v: { replicaId: "", nonce: "n", rev: 1, leaseMs: 1 }, s: 1 },
      { t: TABLES.results, k: a!.keyOf(req), v: { rev: 99 }, s: 1000 },
      { t: TABLES.beats, k: "peer", v: { n: "many" }, s: 1 },
      JSON.parse('{"__proto__": {"polluted": true}, "t": "errors", "k": "x", "v": 1, "s": 1}'),
    ]);
    expect(() => peer.transact(() => peer.getArray<unknown>(ROOT).push([lane, 7]))).not.toThrow();
    await tick();
    const after = model.getSnapshot();
    expect(after.malformed).toHaveLength(6);
    expect(after.malformed).toEqual(a!.malformed());
    // The row keeps what it showed; it only says a record of it is malformed ("evict record" removes it).
    expect(after.keys).toEqual(before.keys.map((r) => (r.key === a!.keyOf(req) ? { ...r, malformed: true } : r)));
    expect(after.replicas).toBe(before.replicas);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    model.destroy();
    c.destroy();
  });

  it("a lane holding nothing but garbage still reaches the panel (no table listener would fire for it)", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    const model = createDevtoolsModel(a!);
    model.getSnapshot();
    let notified = 0;
    model.subscribe(() => notified++);
    const lane = new Y.Array<unknown>();
    lane.push([null, 42, { t: "nonsense-table", k: "x", v: 1, s: 1 }]);
    c.docOf(a!).getArray<unknown>(ROOT).push([lane]);
    await tick();
    expect(notified).toBe(1);
    expect(model.getSnapshot().malformed.map((m) => m.reason)).toEqual([
      "entry is not a { t, k, v, s } record",
      "entry is not a { t, k, v, s } record",
      'unknown table "nonsense-table"',
    ]);
    model.destroy();
    c.destroy();
  });

  it("issue 10: a settle window that ends by time alone (cut off from the sync server for longer than it) shows so, with no doc change", async () => {
    const doc = new Y.Doc();
    // A sync server down since the store was made: the default window at first, then none.
    const downSince = Date.now();
    registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice: true, disconnectedSince: () => downSince });
    const store = createSharedFetchStore({ doc, locks: null });
    const model = createDevtoolsModel(store);
    const notified: unknown[] = [];
    const off = model.subscribe(() => notified.push(model.getSnapshot().settle?.why));
    expect(model.getSnapshot().settle).toEqual({ ms: DEFAULT_SETTLE_MS, eager: false, why: "default" });
    await tick(DEFAULT_SETTLE_MS + 1);
    expect(model.getSnapshot().settle).toEqual({ ms: 0, eager: true, why: "disconnected" });
    expect(notified).toContain("disconnected");
    // Nothing more to wait for: no further looks while nothing changes.
    const looks = vi.spyOn(store, "inspect");
    await tick(10 * DEFAULT_SETTLE_MS);
    expect(looks).not.toHaveBeenCalled();
    off();
    model.destroy();
    store.destroy();
  });

  it("issue 10: this store's own attempt shows where it is on its way to the request; waiting for the key's Web Lock counts as pending", async () => {
    // A lock manager that grants the replica's own lock and never a key's: the attempt stays at its lock.
    const never = new Promise<never>(() => {});
    const locks = {
      request: (name: string, _options: unknown, callback: (lock: unknown) => unknown) =>
        name.startsWith(REPLICA_LOCK_PREFIX) ? Promise.resolve().then(() => callback({})) : never,
    };
    const store = createSharedFetchStore({ doc: new Y.Doc(), locks, browserId: "one-browser", fetch: () => never });
    const model = createDevtoolsModel(store);
    background(store.ensure(req));
    await tick(10);
    const [row] = model.getSnapshot().keys;
    expect(row).toMatchObject({ key: store.keyOf(req), status: "pending", attempt: { rev: 1, phase: "locking" } });
    expect(row!.claim).toBeUndefined();
    model.destroy();
    store.destroy();
  });

  it("issue 10: a key asked for before the store is in sync shows it waiting for the sync, then its attempt once the wait ends", async () => {
    const doc = new Y.Doc();
    // A sync server that accepted the socket and never answers: the first claim waits the cap.
    registerConnector(doc, { whenSynced: new Promise<void>(() => {}), crossDevice: true });
    const store = createSharedFetchStore({ doc, locks: null, fetch: () => new Promise<never>(() => {}) });
    const model = createDevtoolsModel(store);
    background(store.ensure(req));
    await tick(10);
    const row = () => model.getSnapshot().keys[0];
    expect(row()).toMatchObject({ key: store.keyOf(req), waitsForSync: true });
    expect(row()!.attempt).toBeUndefined();
    await tick(SYNC_WAIT_MS);
    expect(row()!.waitsForSync).toBeUndefined();
    expect(row()!.attempt).toMatchObject({ rev: 1 });
    model.destroy();
    store.destroy();
  });
});
