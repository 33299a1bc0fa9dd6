/**
 * Issue "time to data": a claim waits for no lock round trip of its own. The key's Web Lock is
 * queued for beside the initial sync, and behind a live claimant of this browser, so a crash hands
 * it to a waiting tab at the moment the claimant's own lock is released (invariant 3a) — while a
 * lock granted before the result's message arrives (the ordering pitfall) sends nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { registerConnector } from "../src/core/connectors.ts";
import type { LockManagerLike } from "../src/core/locks.ts";
import { createSharedFetchStore } from "../src/index.ts";
import * as Y from "yjs";

const req = { url: URL_A };
const isKeyLock = (name: string) => name.startsWith("shared-fetch:key:");

/** A tab's lock manager that logs the key locks it asks for. */
function counting(locks: FakeLocks, tag: string): { manager: LockManagerLike; keyRequests: string[] } {
  const inner = locks.forTab(tag);
  const keyRequests: string[] = [];
  return {
    keyRequests,
    manager: {
      request: (name, options, callback) => {
        if (isKeyLock(name)) keyRequests.push(name);
        return inner.request(name, options, callback);
      },
    },
  };
}

describe("key locks queued ahead of the claim", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a tab waiting on a live claimant of its browser holds the key when it crashes: the takeover asks for no lock", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
    const b = counting(locks, "b");
    const bStore = c.join({ locks: b.manager, browserId: "browser-1" });
    await tick();
    background(a.ensure(req));
    await tick(50);
    const waiting = bStore.ensure(req);
    await tick(50);
    expect(b.keyRequests).toHaveLength(1); // queued behind a's claim
    expect(c.host.calls).toHaveLength(1);

    c.crash(a);
    locks.crash("a");
    await tick(30); // the settle window of a store with no tab connector (cluster's 20 ms)
    expect(c.host.calls).toHaveLength(2);
    expect(bStore.claims()[0]![1]).toMatchObject({ replicaId: bStore.replicaId, rev: 1 });
    expect(b.keyRequests).toHaveLength(1);
    c.host.calls[1]!.respond(200, "b");
    await expect(until(waiting)).resolves.toMatchObject({ data: "b" });
  });

  it("a lock granted before the result's message arrives sends nothing, and is let go once the result is seen", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
    const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1" });
    await tick();
    const first = a.ensure(req);
    await tick(50);
    const waiting = b.ensure(req);
    await tick(50);
    c.net.isolate(c.docOf(b)); // the result's message is late; a's key lock is released at once
    c.host.calls[0]!.respond(200, "a");
    await until(first);
    await tick(50);
    const heldBy = (tag: string) => locks.holders().filter((h) => h === tag).length;
    expect(heldBy("b")).toBe(2); // its replica lock, and the key granted while a's claim still shows to it
    expect(c.host.calls).toHaveLength(1);

    c.net.heal();
    await expect(until(waiting)).resolves.toMatchObject({ data: "a" });
    await tick(0);
    expect(heldBy("b")).toBe(1);
    expect(c.host.calls).toHaveLength(1);
  });

  it("the key lock is asked for beside the initial sync: once in sync, the claim follows with no lock round trip", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = counting(locks, "a");
    const doc = c.net.add();
    let synced!: () => void;
    registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    const store = createSharedFetchStore({ doc, fetch: c.host.fetch, locks: a.manager, browserId: "browser-1" });
    c.stores.push(store);
    const asked = store.ensure(req);
    await tick(0);
    expect(a.keyRequests).toHaveLength(1);
    expect(store.claims()).toHaveLength(0); // not in sync yet: no claim

    expect(locks.holders().filter((h) => h === "a")).toHaveLength(2); // its replica lock and the key's
    synced();
    await tick(0);
    expect(store.claims()).toHaveLength(1);
    expect(c.host.calls).toHaveLength(1);
    expect(a.keyRequests).toHaveLength(1);
    c.host.calls[0]!.respond(200, "x");
    await expect(until(asked)).resolves.toMatchObject({ data: "x" });
  });

  it("a key whose result arrives with the initial sync lets the queued lock go and sends nothing", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const writer = c.join({ locks: locks.forTab("w"), browserId: "browser-1" });
    await tick();
    const written = writer.ensure(req);
    await tick(50);
    c.host.calls[0]!.respond(200, "w");
    await until(written);

    const doc = new Y.Doc(); // not connected yet: its sync brings the result
    let synced!: () => void;
    registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    const late = createSharedFetchStore({ doc, fetch: c.host.fetch, locks: locks.forTab("late"), browserId: "browser-1" });
    c.stores.push(late);
    const asked = late.ensure(req);
    await tick(0);
    expect(locks.holders().filter((h) => h === "late")).toHaveLength(2);
    c.net.add(doc);
    synced();
    await expect(until(asked)).resolves.toMatchObject({ data: "w" });
    await tick(0);
    expect(locks.holders().filter((h) => h === "late")).toHaveLength(1); // its replica lock only
    expect(c.host.calls).toHaveLength(1);
  });
});
