/**
 * Issue "time to data": the settle window is 0 inside a browser (Web Locks decide), sized from
 * measured round trips across devices (two trips at the 95th percentile, bounded), and 0 with an
 * eager claim for a replica that has no replica of another browser present — which a racing
 * newcomer's claim then yields to — or whose doc nothing syncs (no connector, no update listener),
 * or that has been disconnected from every server for longer than the window.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import * as Y from "yjs";
import { registerConnector, type ConnectorInfo } from "../src/core/connectors.ts";
import { settleFor } from "../src/core/settle-window.ts";
import { MAX_SIZED_SETTLE_MS, MIN_SIZED_SETTLE_MS, TripSamples, windowForTrip } from "../src/core/trips.ts";
import { openDocRecords } from "../src/core/doc-records.ts";
import { createSharedFetchStore, DEFAULT_SETTLE_MS } from "../src/index.ts";
import { wiredDocs } from "./harness/replicas.ts";

const NOW = 1_000_000;
const synced = Promise.resolve();

function docWith(...connectors: Partial<ConnectorInfo>[]): Y.Doc {
  const doc = new Y.Doc();
  for (const c of connectors) registerConnector(doc, { whenSynced: synced, crossDevice: false, ...c });
  return doc;
}

const base = { exactTabs: true, fixedMs: undefined, defaultMs: 100, elsewhere: () => 1 };

describe("settleFor", () => {
  it("is 0 between tabs of one browser (the key lock decides), the fixed window without Web Locks", () => {
    expect(settleFor({ ...base, doc: docWith({}) }, NOW)).toEqual({ ms: 0, eager: false, why: "tab-locks" });
    expect(settleFor({ ...base, exactTabs: false, doc: docWith({}) }, NOW)).toEqual({ ms: 100, eager: false, why: "default" });
  });

  it("across devices: the default until a trip is measured, then two trips at p95 + 10 ms, bounded", () => {
    const unmeasured = docWith({}, { crossDevice: true, tripMs: () => undefined });
    expect(settleFor({ ...base, doc: unmeasured }, NOW)).toEqual({ ms: 100, eager: false, why: "default" });
    const measured = docWith({}, { crossDevice: true, tripMs: () => 21 });
    expect(settleFor({ ...base, doc: measured }, NOW)).toEqual({ ms: 52, eager: false, why: "measured-trip", tripMs: 21 });
    expect(windowForTrip(1)).toBe(MIN_SIZED_SETTLE_MS);
    expect(windowForTrip(5000)).toBe(MAX_SIZED_SETTLE_MS);
  });

  it("before trips are measured, the initial sync bounds the window: shorter than the default where it was quick, never longer", () => {
    const quick = docWith({ crossDevice: true, tripMs: () => undefined, syncTripMs: () => 3 });
    expect(settleFor({ ...base, doc: quick }, NOW)).toEqual({ ms: windowForTrip(3), eager: false, why: "initial-sync", tripMs: 3 });
    expect(windowForTrip(3)).toBe(MIN_SIZED_SETTLE_MS);
    const slow = docWith({ crossDevice: true, tripMs: () => undefined, syncTripMs: () => 400 });
    expect(settleFor({ ...base, doc: slow }, NOW)).toEqual({ ms: 100, eager: false, why: "default" });
    // A measured trip wins over the bound, either way.
    const measured = docWith({ crossDevice: true, tripMs: () => 60, syncTripMs: () => 3 });
    expect(settleFor({ ...base, doc: measured }, NOW)).toMatchObject({ ms: windowForTrip(60), why: "measured-trip", tripMs: 60 });
    // Two servers: each needs a trip or a bound, else the default.
    const oneUnknown = docWith({ crossDevice: true, syncTripMs: () => 3 }, { crossDevice: true });
    expect(settleFor({ ...base, doc: oneUnknown }, NOW).ms).toBe(100);
    const both = docWith({ crossDevice: true, syncTripMs: () => 3 }, { crossDevice: true, tripMs: () => 30 });
    expect(settleFor({ ...base, doc: both }, NOW)).toMatchObject({ ms: windowForTrip(30), why: "initial-sync", tripMs: 30 });
  });

  it("the settleMs option fixes the window across devices", () => {
    const doc = docWith({ crossDevice: true, tripMs: () => 21, syncedSince: () => 0 });
    expect(settleFor({ ...base, fixedMs: 250, elsewhere: () => 0, doc }, NOW)).toEqual({ ms: 250, eager: false, why: "settle-ms" });
  });

  it("alone (no replica of another browser present) and in sync for longer than the window: eager, no window", () => {
    const longAgo = docWith({ crossDevice: true, tripMs: () => 21, syncedSince: () => NOW - 60_000 });
    expect(settleFor({ ...base, elsewhere: () => 0, doc: longAgo }, NOW)).toEqual({ ms: 0, eager: true, why: "alone" });
    // Just synced: a device booting at the same moment may not be visible yet.
    const justNow = docWith({ crossDevice: true, tripMs: () => 21, syncedSince: () => NOW - 10 });
    expect(settleFor({ ...base, elsewhere: () => 0, doc: justNow }, NOW)).toEqual({
      ms: 52,
      eager: false,
      why: "measured-trip",
      tripMs: 21,
    });
    // Disconnected: not in sync.
    const offline = docWith({ crossDevice: true, tripMs: () => 21, syncedSince: () => undefined });
    expect(settleFor({ ...base, elsewhere: () => 0, doc: offline }, NOW).eager).toBe(false);
    // Someone elsewhere, or a store that cannot tell (no awareness): the window.
    expect(settleFor({ ...base, elsewhere: () => 1, doc: longAgo }, NOW).eager).toBe(false);
    expect(settleFor({ ...base, elsewhere: undefined, doc: longAgo }, NOW).eager).toBe(false);
  });

  it("disconnected from every server for longer than the window (a server down): eager, no window; just disconnected: the window", () => {
    const longDown = docWith({ crossDevice: true, disconnectedSince: () => NOW - 5_000, fence: () => false });
    expect(settleFor({ ...base, doc: longDown }, NOW)).toEqual({ ms: 0, eager: true, why: "disconnected" });
    const justDown = docWith({ crossDevice: true, disconnectedSince: () => NOW - 10, fence: () => false });
    expect(settleFor({ ...base, doc: justDown }, NOW)).toMatchObject({ ms: 100, eager: false, why: "default" });
    // Two servers, one of them in sync: someone may still race through it.
    const oneUp = docWith(
      { crossDevice: true, disconnectedSince: () => NOW - 5_000 },
      { crossDevice: true, tripMs: () => 21, syncedSince: () => NOW - 5_000 },
    );
    expect(settleFor({ ...base, doc: oneUp }, NOW)).toEqual({ ms: 100, eager: false, why: "default" });
    // settleMs set by the app: as set.
    expect(settleFor({ ...base, fixedMs: 250, doc: longDown }, NOW)).toEqual({ ms: 250, eager: false, why: "settle-ms" });
  });

  it("through one server that orders claims (a fence): the window only covers the replica's first moments in sync", () => {
    const fence = () => true;
    const justNow = docWith({ crossDevice: true, tripMs: () => 21, syncedSince: () => NOW - 10, fence });
    const soon = settleFor({ ...base, doc: justNow }, NOW);
    // 52 ms sized, 10 of them already spent in sync; the full window if the server's order is lost.
    expect(soon).toMatchObject({ ms: 42, eager: false, why: "measured-trip", tripMs: 21, fence: { fallbackMs: 52 } });
    expect(soon.fence!.ask).toBe(fence);
    const longAgo = docWith({ crossDevice: true, tripMs: () => 21, syncedSince: () => NOW - 60_000, fence });
    expect(settleFor({ ...base, doc: longAgo }, NOW)).toMatchObject({ ms: 0, eager: false, fence: { fallbackMs: 52 } });
    // Two servers order nothing between them: the timed window, no fence.
    const two = docWith(
      { crossDevice: true, tripMs: () => 21, syncedSince: () => NOW - 10, fence },
      { crossDevice: true, tripMs: () => 21, fence },
    );
    expect(settleFor({ ...base, doc: two }, NOW)).toEqual({ ms: 52, eager: false, why: "measured-trip", tripMs: 21 });
    // settleMs set by the app: as set.
    expect(settleFor({ ...base, fixedMs: 250, doc: longAgo }, NOW)).toEqual({ ms: 250, eager: false, why: "settle-ms" });
  });
});

describe("a doc nothing syncs (no connector, no listener of its updates)", () => {
  const bare = { ...base, exactTabs: false, elsewhere: undefined };

  it("has nobody to race: no window, an eager claim, with or without Web Locks", () => {
    expect(settleFor({ ...bare, doc: new Y.Doc() }, NOW)).toEqual({ ms: 0, eager: true, why: "nothing-syncs" });
    expect(settleFor({ ...bare, exactTabs: true, doc: new Y.Doc() }, NOW)).toEqual({ ms: 0, eager: true, why: "nothing-syncs" });
  });

  it("a doc wired by hand (something listens to its updates) keeps the window; settleMs is kept as set", () => {
    const wired = new Y.Doc();
    const send = () => {};
    wired.on("update", send);
    expect(settleFor({ ...bare, doc: wired }, NOW)).toEqual({ ms: 100, eager: false, why: "default" });
    wired.off("update", send);
    expect(settleFor({ ...bare, doc: wired }, NOW)).toEqual({ ms: 0, eager: true, why: "nothing-syncs" });
    expect(settleFor({ ...bare, fixedMs: 250, doc: new Y.Doc() }, NOW)).toEqual({ ms: 250, eager: false, why: "settle-ms" });
  });
});

describe("stores: a lone store sends at once, replicas wired by hand still share one request", () => {
  afterEach(() => vi.useRealTimers());

  it("a store alone (Node, no connector) sends each first request with no window; eight wired docs asking at once send one", async () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return new Response("1");
    };
    const lone = createSharedFetchStore({ doc: new Y.Doc(), locks: null, fetch });
    onTestFinished(() => lone.destroy());
    for (const path of ["a", "b", "c"]) {
      const done = lone.ensure({ url: `https://api.example.test/${path}` });
      await vi.advanceTimersByTimeAsync(0); // no timer is due: the request left at once
      expect(sent.at(-1)).toBe(`https://api.example.test/${path}`);
      expect((await done).status).toBe("success");
    }

    // Wired by hand, each update delivered as a task of its own: the window still decides.
    sent.length = 0;
    const stores = wiredDocs(8).map((doc) => createSharedFetchStore({ doc, locks: null, fetch }));
    onTestFinished(() => stores.forEach((s) => s.destroy()));
    const all = Promise.all(stores.map((s) => s.ensure({ url: "https://api.example.test/shared" })));
    await vi.advanceTimersByTimeAsync(DEFAULT_SETTLE_MS - 1);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await all).every((snap) => snap.status === "success")).toBe(true);
    expect(sent).toEqual(["https://api.example.test/shared"]);
  });
});

describe("what a store tells of its window: inspect().settle and the claimed event", () => {
  afterEach(() => vi.useRealTimers());

  it("names the window a claim made now waits and why; each claimed event carries the window its claim waited", async () => {
    vi.useFakeTimers();
    const fetch = async () => new Response("1");
    const lone = createSharedFetchStore({ doc: new Y.Doc(), locks: null, fetch });
    const [wa, wb] = wiredDocs(2);
    const wired = createSharedFetchStore({ doc: wa!, locks: null, fetch });
    const other = createSharedFetchStore({ doc: wb!, locks: null, fetch });
    const fixed = createSharedFetchStore({ doc: new Y.Doc(), locks: null, fetch, settleMs: 30 });
    onTestFinished(() => [lone, wired, other, fixed].forEach((s) => s.destroy()));
    expect(lone.inspect().settle).toEqual({ ms: 0, eager: true, why: "nothing-syncs" });
    expect(wired.inspect().settle).toEqual({ ms: DEFAULT_SETTLE_MS, eager: false, why: "default" });
    expect(fixed.inspect().settle).toEqual({ ms: 30, eager: false, why: "settle-ms" });
    for (const [store, settleMs, settleWhy] of [
      [lone, 0, "nothing-syncs"],
      [wired, DEFAULT_SETTLE_MS, "default"],
      [fixed, 30, "settle-ms"],
    ] as const) {
      const claimed: unknown[] = [];
      const off = store.onEvent((e) => e.type === "claimed" && claimed.push(e));
      const done = store.ensure({ url: "https://api.example.test/window" });
      await vi.advanceTimersByTimeAsync(1000);
      expect((await done).status).toBe("success");
      off();
      expect(claimed).toEqual([expect.objectContaining({ rev: 1, settleMs, settleWhy })]);
    }
  });
});

describe("TripSamples", () => {
  it("keeps the recent samples and reports their 95th percentile, ignoring nonsense", () => {
    const t = new TripSamples(20);
    expect(t.p95()).toBeUndefined();
    for (let i = 1; i <= 40; i++) t.add(i);
    t.add(Number.NaN);
    t.add(-5);
    expect(t.count).toBe(20);
    expect(t.p95()).toBe(39); // samples 21..40
  });
});

describe("eager claims outrank a claim still settling at the same revision", () => {
  it("two replicas that claimed before they synced both see the eager claim win, whichever client id is higher", () => {
    for (const eagerFirst of [true, false]) {
      const [a, b] = [new Y.Doc(), new Y.Doc()];
      const [ra, rb] = [openDocRecords(a, () => null), openDocRecords(b, () => null)];
      const eager = { replicaId: "alone", nonce: "n-a", rev: 1, leaseMs: 5000, eager: true as const };
      const settling = { replicaId: "newcomer", nonce: "n-b", rev: 1, leaseMs: 5000 };
      (eagerFirst ? ra : rb).claims.set("k", eager);
      (eagerFirst ? rb : ra).claims.set("k", settling);
      Y.applyUpdate(a, Y.encodeStateAsUpdate(b));
      Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
      expect(ra.claims.get("k")).toMatchObject({ replicaId: "alone", eager: true });
      expect(rb.claims.get("k")).toMatchObject({ replicaId: "alone", eager: true });
      // A higher revision still wins over an eager claim.
      rb.claims.set("k", { ...settling, rev: 2 });
      Y.applyUpdate(a, Y.encodeStateAsUpdate(b));
      expect(ra.claims.get("k")).toMatchObject({ replicaId: "newcomer", rev: 2 });
      ra.destroy();
      rb.destroy();
    }
  });
});
