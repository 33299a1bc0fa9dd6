import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../src/core/connectors.ts";
import { createSharedFetchStore } from "../src/index.ts";
import { internalsOf } from "../src/internals.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const req = { url: URL_A };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("time to data: exact arbitration inside a browser, no window for a lone tab, claims after the initial sync", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("tabs of one browser claiming at once: the key's Web Lock picks one, with no settle window (1 request)", async () => {
    const locks = new FakeLocks();
    const c = cluster(0, { settleMs: 100 });
    c.net.delayMs = 1; // BroadcastChannel's trip
    const stores = [0, 1, 2, 3].map((i) => c.join({ locks: locks.forTab(`t${i}`), browserId: "browser-1" }));
    // Only tabs reach these docs: the stores know no other device can race.
    for (const s of stores) registerConnector(c.docOf(s), { whenSynced: Promise.resolve(), crossDevice: false });
    await tick();
    const waiting = stores.map((s) => s.ensure(req));
    await tick(5); // far below the 100 ms window: the lock decided, not the clock
    expect(c.host.calls).toHaveLength(1);
    c.host.calls[0]!.respond(200, { one: true });
    for (const p of waiting) await expect(until(p)).resolves.toMatchObject({ status: "success", data: { one: true } });
    expect(c.host.calls).toHaveLength(1);
  });

  it("a lone tab pays no settle window: its request goes out at once", async () => {
    const locks = new FakeLocks();
    const c = cluster(0, { settleMs: 100 });
    const store = c.join({ locks: locks.forTab("alone"), browserId: "browser-1" });
    registerConnector(c.docOf(store), { whenSynced: Promise.resolve(), crossDevice: false });
    background(store.ensure(req));
    await tick(1);
    expect(c.host.calls).toHaveLength(1);
  });

  it("where the key's lock decides and no window follows, the request leaves before the claim's write, and the claim is in the doc within the same task", async () => {
    const locks = new FakeLocks();
    const c = cluster(0, { settleMs: 100 });
    const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
    const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1" });
    for (const s of [a, b]) registerConnector(c.docOf(s), { whenSynced: Promise.resolve(), crossDevice: false });
    await tick();
    const claims = internalsOf(a).records.claims;
    const key = a.keyOf(req);
    const atCall: unknown[] = [];
    const afterCall: unknown[] = [];
    c.host.onCall((call) => {
      if (call.state !== "in-flight" || atCall.length) return;
      atCall.push(claims.get(key));
      queueMicrotask(() => afterCall.push(claims.get(key)));
    });
    background(a.ensure(req));
    await tick(1);
    expect(c.host.calls).toHaveLength(1);
    // The claim's transaction (its index, its messages, its IndexedDB write) comes after the call…
    expect(atCall).toEqual([undefined]);
    // … in the same task: nothing else ran in between, and every replica sees the key claimed.
    expect(afterCall).toEqual([expect.objectContaining({ replicaId: a.replicaId, rev: 1 })]);
    await tick(1);
    expect(b.snapshot(req)).toMatchObject({ status: "pending", claim: { replicaId: a.replicaId } });
    c.host.calls[0]!.respond(200, "one");
    await expect(until(b.ensure(req))).resolves.toMatchObject({ status: "success", data: "one" });
    expect(c.host.calls).toHaveLength(1);
  });

  it("a replica that can meet other devices keeps the settle window (the CRDT race is real there)", async () => {
    const locks = new FakeLocks();
    const c = cluster(0, { settleMs: 100 });
    const store = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
    registerConnector(c.docOf(store), { whenSynced: Promise.resolve(), crossDevice: true });
    background(store.ensure(req));
    await tick(50);
    expect(c.host.calls).toHaveLength(0);
    await tick(60);
    expect(c.host.calls).toHaveLength(1);
  });

  it("the first claim waits for the doc's initial sync: a result another replica recorded meanwhile is used, not fetched again", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "from a" });
    await until(a!.ensure(req));
    const late = new Y.Doc(); // a new tab whose sync with the others has not happened yet
    const sync = deferred();
    registerConnector(late, { whenSynced: sync.promise, crossDevice: false });
    const b = createSharedFetchStore({
      doc: late,
      fetch: c.host.fetch,
      settleMs: 0,
      locks: new FakeLocks().forTab("b"),
      browserId: "browser-2",
    });
    onTestFinished(() => b.destroy());
    const p = b.ensure(req);
    await tick(1000);
    expect(b.claims()).toEqual([]); // no claim while the doc is not in sync
    Y.applyUpdate(late, Y.encodeStateAsUpdate(c.docOf(a!)));
    sync.resolve();
    await expect(until(p)).resolves.toMatchObject({ status: "success", data: "from a" });
    expect(c.host.calls).toHaveLength(1);
  });

  it("an initial sync that never completes does not block work for good (the server is down)", async () => {
    const c = cluster(0, { settleMs: 0 });
    const store = c.join({ locks: new FakeLocks().forTab("a"), browserId: "b1" });
    registerConnector(c.docOf(store), { whenSynced: new Promise(() => {}), crossDevice: true });
    c.host.auto = () => ({ status: 200, body: 1 });
    await expect(until(store.ensure(req))).resolves.toMatchObject({ status: "success" });
    expect(c.host.calls).toHaveLength(1);
  });
});
