/**
 * Devtools' crash simulation (`dev.crash`, internals) shows what a real crash of a tab shows. A
 * tab that crashes sends nothing: the other tabs keep its presence, unrenewed, until y-protocols'
 * 30 s check drops it as timed out ("absent": heard from no more, not known dead), and its claims
 * keep their lease (the browser's Web Lock, where there is one, tells at once). The simulation
 * withdrew the presence instead, as an orderly leave: the others saw "presence left" at once and
 * took its claims over, which no crashed tab without Web Locks ever causes. Real connectTabs
 * (BroadcastChannel under Node), a fake clock.
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { Host } from "../../sim/host.ts";
import { background, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

/** Lets BroadcastChannel's messages (real tasks, not timers) arrive, then due timers run. */
async function deliver(ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await tick(ms);
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("dev.crash on tabs: the crashed tab's presence goes stale and times out, as a real crash's (invariant 3)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("B sees A present until the 30 s timeout, then absent (not departed); A's claim keeps its lease, no takeover", async () => {
    const name = `crash-sim-${Math.random()}`;
    const host = new Host();
    const tab = (replicaId: string) => {
      const doc = new Y.Doc();
      const tabs = connectTabs(doc, { name, indexeddb: false });
      const store = createSharedFetchStore({ doc, awareness: tabs.awareness, replicaId, fetch: host.fetch, leaseMs: 600_000, settleMs: 0 });
      onTestFinished(() => (store.destroy(), tabs.destroy()));
      return { store, awareness: tabs.awareness };
    };
    const { store: a, awareness: awA } = tab("replica-a");
    const { store: b, awareness: awB } = tab("replica-b");
    await deliver(300);
    const req = { url: URL_A };
    background(a.ensure(req));
    await deliver(10);
    b.subscribe(req, () => {});
    await deliver(10);
    const rowOf = (id: string) => b.inspect().replicas.find((r) => r.replicaId === id);
    expect(rowOf("replica-a")).toMatchObject({ present: true });
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: "replica-a", stale: false });

    internalsOf(a).dev.crash();
    await deliver(10);
    // A crashed tab says nothing: B still counts it present and its claim stands.
    expect(awB.getStates().get(awA.clientID)).toBeDefined();
    expect(rowOf("replica-a")).toMatchObject({ present: true });
    expect(rowOf("replica-a")?.departed).toBeUndefined();
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: "replica-a", stale: false });

    // y-protocols dates presence with lib0's clock, which is Date.now taken at load (the real
    // one, not the fake): each side's record is aged by hand, then its 3 s check runs.
    const heardOfA = () => awB.meta.get(awA.clientID)!.clock;
    const before = heardOfA();
    awA.meta.get(awA.clientID)!.lastUpdated -= 20_000; // A's renewal is due: a live tab renews now
    await deliver(3_000);
    expect(heardOfA()).toBe(before);
    awB.meta.get(awA.clientID)!.lastUpdated -= 31_000; // unheard of for longer than 30 s
    await deliver(3_000);
    expect(awB.getStates().has(awA.clientID)).toBe(false);
    // Timed out proves no death: absent, not departed, and its claim keeps its lease.
    expect(rowOf("replica-a")?.present ?? false).toBe(false);
    expect(rowOf("replica-a")?.departed).toBeUndefined();
    expect(b.snapshot(req).claim).toMatchObject({ replicaId: "replica-a", stale: false });
    expect(host.calls).toHaveLength(1);
  }, 20_000);
});
