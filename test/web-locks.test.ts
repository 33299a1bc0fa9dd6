import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock, twoTabs, crashFoundByLock } from "./harness/replicas.ts";
import { FakeLocks } from "../sim/fake-locks.ts";
import { ReplicaLocks } from "../src/core/locks.ts";

const LEASE = 5000;
const req = { url: URL_A };

describe("Web Locks: the same-browser failure event (invariant 3a)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a crashed claimant of the same browser is taken over at once, with no timer", async () => {
    const { locks, c, a, b } = await twoTabs();
    await crashFoundByLock(c, a, b, () => locks.crash("a"));
    c.destroy();
  });

  it("a page's very first claim already names its browser (it waits for its own lock's grant)", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
    background(a.ensure(req)); // at once, as a component does at mount
    await tick(100);
    expect(a.claims()[0]![1]).toMatchObject({ replicaId: a.replicaId, browserId: "browser-1" });
    c.destroy();
  });

  it("a tab opened after the crash sees the claim, finds the lock free and takes over at once", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
    await tick();
    background(a.ensure(req));
    await tick(100);
    c.crash(a);
    locks.crash("a");
    const reloaded = c.join({ locks: locks.forTab("r"), browserId: "browser-1" }, c.docOf(a));
    const waiting = reloaded.ensure(req);
    await tick(30);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, "r");
    await expect(until(waiting)).resolves.toMatchObject({ data: "r" });
    c.destroy();
  });

  it("a live claimant of the same browser is left alone however long it takes (its lock stays held)", async () => {
    const { c, a, b } = await twoTabs();
    background(a.ensure(req));
    await tick(100);
    background(b.ensure(req));
    await tick(LEASE * 6);
    expect(c.host.calls).toHaveLength(1);
    c.destroy();
  });

  it("hidden tabs: a same-browser claimant whose heartbeats stall (throttled timers) is alive while its lock is held", async () => {
    const { locks, c, a, b } = await twoTabs();
    background(a.ensure(req));
    await tick(100);
    c.net.isolate(c.docOf(a)); // nothing of a's reaches b any more: no heartbeats
    background(b.ensure(req));
    await tick(LEASE * 10);
    expect(c.host.calls).toHaveLength(1);
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: a.replicaId, stale: false });
    locks.crash("a"); // and when it does die, b knows at once
    await tick(30);
    expect(c.host.calls).toHaveLength(2);
    c.destroy();
  });

  it("a claim from another browser is never judged by this browser's locks", async () => {
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = c.join({ locks: new FakeLocks().forTab("a"), browserId: "browser-1" });
    const b = c.join({ locks: locks.forTab("b"), browserId: "browser-2" });
    await tick();
    background(a.ensure(req));
    await tick(100);
    background(b.ensure(req));
    await tick(1000);
    expect(c.host.calls).toHaveLength(1); // the lock named after a is free *here*, but a lives elsewhere
    c.destroy();
  });
});

describe("ReplicaLocks in a long-lived page", () => {
  it("remembers the latest dead replicas, not every one for ever: the oldest is found dead again if watched again", async () => {
    const gone: string[] = [];
    const watcher = new ReplicaLocks(new FakeLocks().forTab("me"), "me", (id) => gone.push(id));
    for (let i = 0; i < 300; i++) watcher.watch(`r${i}`); // tabs of this browser that died: locks free
    await vi.waitFor(() => expect(gone).toHaveLength(300));
    watcher.watch("r299"); // remembered: no new request
    watcher.watch("r0"); // forgotten: its lock is asked again, granted at once
    await vi.waitFor(() => expect(gone).toHaveLength(301));
    expect(gone.at(-1)).toBe("r0");
    watcher.forget("r299"); // a sign of life (a page back from the back/forward cache): watched again
    watcher.watch("r299");
    await vi.waitFor(() => expect(gone).toHaveLength(302));
    expect(gone.at(-1)).toBe("r299");
  });
});
