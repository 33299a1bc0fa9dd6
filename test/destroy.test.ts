import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { registerConnector, SYNC_WAIT_MS } from "../src/core/connectors.ts";
import { createSharedFetchStore } from "../src/index.ts";
import { Host } from "../sim/host.ts";
import { background, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const HOUR = 3600_000;

/** A doc holding another replica's result, asked for 25 hours ago: a sweep would delete it. */
function docWithOldRecord(): { doc: Y.Doc; other: ReturnType<typeof createSharedFetchStore> } {
  const doc = new Y.Doc();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { old: true } });
  const other = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0, replicaId: "other" });
  return { doc, other };
}

describe("destroy(): an orderly stop writes nothing afterwards and leaves no timer behind (invariant 5)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("ensure() then destroy() at once: the retention sweep it queued does not run, nothing is written", async () => {
    const { doc, other } = docWithOldRecord();
    const old = { url: `${URL_A}/old` };
    const p = other.ensure(old);
    await tick(10);
    await expect(p).resolves.toMatchObject({ status: "success" });
    other.destroy();
    await tick(25 * HOUR);

    const host = new Host();
    const store = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 });
    const updates: Uint8Array[] = [];
    background(store.ensure({ url: `${URL_A}/new` }));
    store.destroy();
    doc.on("update", (u: Uint8Array) => updates.push(u));
    await tick(HOUR);

    expect(updates).toEqual([]);
    expect(store.snapshot(old)).toMatchObject({ status: "success", data: { old: true } });
  });

  it("after destroy() no timer of the store fires: settle windows, re-checks, heartbeats are all cleared", async () => {
    const doc = new Y.Doc();
    const host = new Host(); // never answers on its own: the request stays in flight
    const leaseMs = 1000;
    const a = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 50, leaseMs, replicaId: "a" });
    const b = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 50, leaseMs, replicaId: "b" });
    background(a.ensure({ url: URL_A }));
    await tick(60); // a dispatched: its heartbeat runs
    background(b.ensure({ url: URL_A })); // b waits on a's live claim: a re-check timer is armed
    background(a.ensure({ url: `${URL_A}/2` })); // a second claim still in its settle window
    await tick(1);
    expect(host.calls).toHaveLength(1);
    expect(vi.getTimerCount()).toBeGreaterThanOrEqual(3);

    a.destroy();
    b.destroy();
    expect(vi.getTimerCount()).toBe(0);
    const updates: Uint8Array[] = [];
    doc.on("update", (u: Uint8Array) => updates.push(u));
    await tick(10 * leaseMs);
    expect(updates).toEqual([]);
    expect(host.calls).toHaveLength(1);
    expect(host.calls[0]!.signal?.aborted).toBe(true);
  });

  it.each([
    ["the initial sync", "initial"],
    ["a reconnect's sync, at the store's first ask", "first"],
    ["a reconnect's sync, at a claim after an ask", "later"],
  ] as const)("destroy() while a claim waits for %s clears the wait's cap: no timer is left to hold a Node process", async (_, when) => {
    const doc = new Y.Doc();
    const never = new Promise<void>(() => {});
    let resync: Promise<void> | undefined;
    // A connection whose sync never comes: the wait ends only at its cap (SYNC_WAIT_MS).
    registerConnector(doc, { whenSynced: when === "initial" ? never : Promise.resolve(), crossDevice: true, resync: () => resync });
    const host = new Host();
    host.auto = () => ({ status: 200, body: {} });
    const store = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 });
    if (when === "later") await until(store.ensure({ url: `${URL_A}/warm` }));
    await tick();
    if (when !== "initial") resync = never;
    const asked = background(store.ensure({ url: URL_A }));
    await tick();
    expect(store.inspect().lifecycle).toBe("starting");

    store.destroy();
    await expect(asked).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
    await tick(SYNC_WAIT_MS);
    expect(host.calls.map((c) => c.url)).toEqual(when === "later" ? [`${URL_A}/warm`] : []);
  });

  it("a destroyed store rejects new work at once and never claims", async () => {
    const doc = new Y.Doc();
    const store = createSharedFetchStore({ doc, fetch: new Host().fetch, settleMs: 0 });
    store.destroy();
    await expect(store.ensure({ url: URL_A })).rejects.toMatchObject({ name: "AbortError" });
    expect(store.claims()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
