/**
 * A tab swaps its store on the same connection (a logout and a login: a new store on the same doc
 * and awareness, the old one destroyed). Another tab's Timeline told the old replica as "not heard
 * from (its presence timed out after 30 s of silence, or this side's connection dropped)": neither
 * happened. Its presence was taken over by the new store on that connection, and the entry now
 * says so, naming the new replica (invariant 3a: still no proof of death, its claims keep their lease).
 */
import "fake-indexeddb/auto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { cluster, tick, useFakeClock } from "../harness/replicas.ts";

describe("devtools timeline: a store swapped on the same awareness (invariant 3a)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("the old replica's entry names the new one that took its presence over, not a timeout", async () => {
    const [awA, awB] = linkedPresence(2).all;
    const c = cluster(0);
    const a = c.join({ awareness: awA! });
    const before = c.join({ awareness: awB! });
    await tick();
    const model = createDevtoolsModel(a, { awareness: awA, minNotifyIntervalMs: 0 });
    await tick();
    const after = c.join({ awareness: awB!, doc: c.docOf(before) });
    before.destroy();
    await tick();
    const told = model.timeline.entries({ replicaId: before.replicaId }).filter((e) => e.type === "unheard" || e.type === "departed");
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ type: "unheard", replicaId: before.replicaId, by: after.replicaId });
    const names = (id: string) => (id === before.replicaId ? "B1" : id === after.replicaId ? "B2" : id);
    expect(describeEntry(told[0]!, names)).toMatch(/^B1: its presence was taken over by B2, a new store on its connection/);
    model.destroy();
  });
});

describe("devtools timeline: a store swapped on the same connection, the panel given no awareness (invariant 3a)", () => {
  it("the panel reads the presence its store's doc is connected with, and names the new store too", async () => {
    const name = `store-swap-${Math.random().toString(36).slice(2)}`;
    const tab = (doc = new Y.Doc(), conn = connectTabs(doc, { name })) => ({
      doc,
      conn,
      store: createSharedFetchStore({ doc, awareness: conn.awareness }),
    });
    const a = tab();
    const b = tab();
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    await vi.waitFor(() => expect(a.store.inspect().replicas.find((r) => r.replicaId === b.store.replicaId)?.present).toBe(true));
    // `<SharedFetchDevtools store={store} />`: no awareness prop.
    const model = createDevtoolsModel(a.store, { minNotifyIntervalMs: 0 });
    // Tab B: a logout and a login, a new store on the same doc and connection, the old one destroyed.
    const before = b.store;
    const after = createSharedFetchStore({ doc: b.doc, awareness: b.conn.awareness });
    before.destroy();
    const told = () => model.timeline.entries({ replicaId: before.replicaId }).filter((e) => e.type === "unheard" || e.type === "departed");
    await vi.waitFor(() => expect(told()).toHaveLength(1));
    expect(told()[0]).toMatchObject({ type: "unheard", replicaId: before.replicaId, by: after.replicaId });
    model.destroy();
    for (const t of [a, { ...b, store: after }]) {
      t.store.destroy();
      t.conn.destroy();
      t.doc.destroy();
    }
  });
});
