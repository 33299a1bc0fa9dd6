/**
 * Invariant 11 and invariant 3a as the panel tells them: a claimant keeps a request another tab of
 * its browser waits on, and once that waiter's lifetime Web Lock is released (it crashed) counts it
 * no more and aborts the request nobody waits on. The Keys tab drops the dead waiter at once, and
 * the Timeline says why the claim was let go with nothing recorded (the store's own "aborted"
 * event), right after the waiter's death — not a bare "released".
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

describe("a waiter's crash ends the request it waited on, and the panel says so (invariant 11, invariant 3a)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the Keys tab drops the dead waiter, and the Timeline tells the release as an abort because nobody waits", async () => {
    const presence = linkedPresence(2);
    const locks = new FakeLocks();
    const c = cluster(0);
    const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", awareness: presence.all[0] });
    const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1", awareness: presence.all[1] });
    await tick();
    const model = createDevtoolsModel(a, { awareness: presence.all[0]!, minNotifyIntervalMs: 0 });
    const asked = new AbortController();
    background(a.ensure({ url: URL_A }, { signal: asked.signal }));
    await tick(100);
    background(b.ensure({ url: URL_A }));
    await tick(100);
    // A's own ask ends: its request goes on for B alone.
    asked.abort();
    await tick(100);
    expect(model.getSnapshot().keys.map((k) => k.claim?.waiters)).toEqual([[b.replicaId]]);

    // B crashes: its doc and presence go silent, its browser frees its lock.
    c.crash(b);
    presence.cut(1);
    locks.crash("b");
    await tick(100);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([true]);
    expect(model.getSnapshot().keys.flatMap((k) => k.claim?.waiters ?? [])).toEqual([]);
    const told = model
      .getSnapshot()
      .timeline.slice(0, 2)
      .map((e) => describeEntry(e, (id) => (id === a.replicaId ? "A" : "B")));
    expect(told).toEqual([
      "A released GET https://api.example.test/items (rev 1) with nothing recorded: aborted, nobody waits on it",
      "B is gone: its Web Lock was released (page closed or crashed)",
    ]);
    model.destroy();
  });

  it("a claim another replica lets go is told as a bare release: the panel knows only its own store's aborts", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => undefined;
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    const asked = new AbortController();
    background(a!.ensure({ url: URL_A }, { signal: asked.signal }));
    await tick(100);
    asked.abort();
    await tick(100);
    expect(model.getSnapshot().timeline[0]).toMatchObject({ type: "released", replicaId: a!.replicaId });
    expect(describeEntry(model.getSnapshot().timeline[0]!)).toMatch(/with nothing recorded$/);
    model.destroy();
  });
});
