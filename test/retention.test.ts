import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";
import { ASK_WRITE_DELAY_MS } from "../src/core/retention.ts";
import { internalsOf } from "../src/internals.ts";
import { registerConnector } from "../src/core/connectors.ts";
import { connectTabs, createSharedFetchStore } from "../src/index.ts";

const HOUR = 3600_000;

describe("growth: records nobody asked for within the retention window are removed", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a key not asked for in 24 h is swept by whichever replica notices; a key in use is kept", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: "x" });
    const old = { url: `${URL_A}/old` };
    const used = { url: `${URL_A}/used` };
    await until(a!.ensure(old));
    await until(a!.ensure(used));
    const unsubscribe = b!.subscribe(used, () => {}); // b shows `used` on screen the whole time
    await tick(25 * HOUR);
    expect(b!.snapshot(old)).toMatchObject({ status: "success" }); // nobody noticed yet: no timer sweeps
    const swept: string[][] = [];
    b!.onEvent((e) => e.type === "swept" && swept.push(e.keys));
    await until(b!.ensure({ url: `${URL_A}/new` })); // b is active again: it notices
    expect(swept).toEqual([[b!.keyOf(old)]]);
    expect(a!.snapshot(old)).toEqual({ status: "idle" });
    expect(a!.snapshot(used)).toMatchObject({ status: "success", data: "x" });
    unsubscribe();
    c.destroy();
  });

  it("an ask record is written ASK_WRITE_DELAY_MS after the ask (off a page's boot), and not again by replicas that asked while it was pending", async () => {
    const c = cluster(3);
    const [a, b, d] = c.stores;
    c.host.auto = () => ({ status: 200, body: "x" });
    const req = { url: `${URL_A}/together` };
    const key = a!.keyOf(req);
    const asks = c.stores.map((s) => internalsOf(s).records.asks);
    await until(a!.ensure(req)); // the result is recorded: the ask of its fetch
    await tick(2 * HOUR); // … long enough ago (retention / 24) that asks are recorded again
    const t0 = Date.now();
    const first = a!.ensure(req);
    await tick(10);
    const second = b!.ensure(req);
    await tick(10);
    const third = d!.ensure(req);
    await until(Promise.all([first, second, third]));
    expect(c.host.calls).toHaveLength(1); // all three answered from the record
    expect(Date.now() - t0).toBeLessThan(ASK_WRITE_DELAY_MS);
    expect(asks.map((m) => m.get(key))).toEqual([undefined, undefined, undefined]);
    await tick(ASK_WRITE_DELAY_MS - (Date.now() - t0));
    expect(asks.map((m) => m.get(key))).toEqual([t0, t0, t0]);
    // b's and d's writes were due 10 and 20 ms later: a's reached them first, so they wrote none.
    await tick(ASK_WRITE_DELAY_MS);
    expect(asks.map((m) => m.contenders(key))).toEqual([[t0], [t0], [t0]]);
  });

  it("the replica that fetched a key writes no ask record: the result it writes restarts every replica's retention clock", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: "x" });
    const polled = { url: `${URL_A}/polled` };
    const swept: string[][] = [];
    b!.onEvent((e) => e.type === "swept" && swept.push(e.keys));
    const askedAt = Date.now();
    await until(a!.ensure(polled));
    await tick(2 * ASK_WRITE_DELAY_MS);
    expect(internalsOf(a!).records.asks.get(a!.keyOf(polled))).toBeUndefined();
    // The devtools still tell when it was last asked for: the result's own time (its request's,
    // sent once the settle window ended).
    const sentAt = a!.resultInfo(polled)!.at!;
    expect(sentAt - askedAt).toBeGreaterThanOrEqual(0);
    expect(sentAt - askedAt).toBeLessThan(100);
    expect(b!.inspect().keys.find((k) => k.key === b!.keyOf(polled))?.lastAskedAt).toBe(sentAt);
    // a refetches it every 20 h and nobody writes an ask: 40 h after the first fetch, b keeps it.
    for (let i = 0; i < 2; i++) {
      await tick(20 * HOUR);
      await until(a!.refetch(polled));
    }
    expect(c.host.calls).toHaveLength(3);
    expect(internalsOf(a!).records.asks.get(a!.keyOf(polled))).toBeUndefined();
    await tick(20 * HOUR);
    await until(b!.ensure({ url: `${URL_A}/other` })); // active: b sweeps what it saw unasked for 24 h
    expect(swept).toEqual([]);
    expect(b!.snapshot(polled)).toMatchObject({ status: "success", data: "x" });
    await tick(5 * HOUR); // 25 h since the last refetch
    await until(b!.ensure({ url: `${URL_A}/third` }));
    expect(swept).toEqual([[b!.keyOf(polled)]]);
    c.destroy();
  });

  it("the replica that fetched writes no ask record even when its request outlasts ASK_WRITE_DELAY_MS (its result counts)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "slow", delayMs: 3 * ASK_WRITE_DELAY_MS });
    const slow = { url: `${URL_A}/slow` };
    const asks = c.stores.map((s) => internalsOf(s).records.asks);
    const done = a!.ensure(slow);
    await tick(ASK_WRITE_DELAY_MS + 100); // the ask's write was due now, while the request runs
    expect(asks.map((m) => m.get(a!.keyOf(slow)))).toEqual([undefined, undefined]);
    await until(done);
    await tick(2 * ASK_WRITE_DELAY_MS);
    expect(c.host.calls).toHaveLength(1);
    expect(asks.map((m) => m.get(a!.keyOf(slow)))).toEqual([undefined, undefined]);
  });

  it("a replica that asks before its doc is in sync records its ask when the sync brings an older result: other replicas' clocks restart", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "daily" });
    const daily = { url: `${URL_A}/daily` };
    await until(a!.ensure(daily));
    await tick(23 * HOUR);
    // Device X boots: its store is made at once and asks before its connector's initial sync,
    // which then brings a's result (recorded 23 h ago). No request: the result answers it.
    const doc = new Y.Doc();
    let synced!: () => void;
    const unregister = registerConnector(doc, { whenSynced: new Promise<void>((r) => (synced = r)), crossDevice: true });
    const x = createSharedFetchStore({ doc, fetch: c.host.fetch, settleMs: 0 });
    const answer = x.ensure(daily);
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.docOf(a!)));
    synced();
    await until(answer);
    expect(c.host.calls).toHaveLength(1);
    await tick(ASK_WRITE_DELAY_MS);
    const key = x.keyOf(daily);
    const written = internalsOf(x).records.asks.get(key);
    expect(written).toBeDefined();
    // a receives it (as a sync would carry it): a's clock for the key restarts, so 2 h later a
    // does not sweep what X asked for 2 h ago; on the code before, it did.
    Y.applyUpdate(c.docOf(a!), Y.encodeStateAsUpdate(doc));
    await tick(2 * HOUR);
    const swept: string[][] = [];
    a!.onEvent((e) => e.type === "swept" && swept.push(e.keys));
    await until(a!.ensure({ url: `${URL_A}/other` })); // active: a sweeps what it saw unasked for 24 h
    expect(swept).toEqual([]);
    expect(a!.snapshot(daily)).toMatchObject({ status: "success", data: "daily" });
    x.destroy();
    unregister();
  });

  it("the doc does not grow with request history (1 000 refetch cycles over 10 keys)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { v: Math.random() } });
    const size = () => Y.encodeStateAsUpdate(c.docOf(a!)).byteLength;
    const cycle = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await until((i % 2 ? a! : b!).refetch({ url: `${URL_A}/${i % 10}` }), 1);
    };
    await cycle(0, 100);
    await tick(ASK_WRITE_DELAY_MS); // the ten keys' ask records are written
    const after100 = size();
    await cycle(100, 1000);
    expect(size()).toBeLessThan(after100 * 1.2);
    c.destroy();
  }, 60_000); // 1 000 request cycles: seconds of real time on a loaded machine

  it("finding 6: a replica whose clock is 25 h ahead does not erase results others asked for a minute ago", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "kept" });
    const asked = { url: `${URL_A}/asked` };
    await until(a!.ensure(asked)); // a asks now, on a's clock
    await tick(60_000);
    // A device whose clock runs 25 h ahead joins: every timestamp a wrote looks a day old to it.
    vi.setSystemTime(Date.now() + 25 * HOUR);
    const ahead = c.join();
    const swept: string[][] = [];
    ahead.onEvent((e) => e.type === "swept" && swept.push(e.keys));
    await until(ahead.ensure({ url: `${URL_A}/other` })); // active: it sweeps
    expect(swept).toEqual([]);
    expect(a!.snapshot(asked)).toEqual({ status: "success", data: "kept" });
    // Its own clock still bounds growth: once *it* has seen the key unasked-for for 24 h, it goes.
    await tick(25 * HOUR);
    await until(ahead.ensure({ url: `${URL_A}/third` }));
    expect(swept).toHaveLength(1);
    expect(swept[0]).toContain(ahead.keyOf(asked));
    c.destroy();
  });

  // README, Design notes ("Storage that does not grow with history"): a doc synced by connectTabs
  // alone dates a loaded key by the newest time its records carry; "a doc with no connector, or
  // with one that reaches other devices (connectPeers, Hocuspocus), dates them at the load": their
  // times may come from another device's clock. Nor does connectTabs vouch for them where neither
  // its database nor localStorage says whether this browser ever synced the name with other
  // devices (a worker's standby, which reads no IndexedDB: its tabs' databases may hold what their
  // peers wrote, each on its own clock).
  const connector = (crossDevice: boolean) => (doc: Y.Doc) => registerConnector(doc, { whenSynced: Promise.resolve(), crossDevice });
  const tabsWithoutStorage = (doc: Y.Doc) => {
    expect(typeof (globalThis as { localStorage?: unknown }).localStorage).toBe("undefined");
    const tabs = connectTabs(doc, { name: `no-storage-${Math.random().toString(36).slice(2)}`, indexeddb: false });
    return () => tabs.destroy();
  };
  it.each([
    { connector: "tabs alone", connect: connector(false), sweptAtOnce: true },
    { connector: "one reaching other devices", connect: connector(true), sweptAtOnce: false },
    {
      connector: "connectTabs with neither IndexedDB nor localStorage (a worker's standby)",
      connect: tabsWithoutStorage,
      sweptAtOnce: false,
    },
  ])("a result recorded 25 h ago, loaded by a doc with $connector: swept at once: $sweptAtOnce", async ({ connect, sweptAtOnce }) => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: "old" });
    const old = { url: `${URL_A}/old` };
    await until(a!.ensure(old));
    await tick(25 * HOUR);
    const doc = new Y.Doc();
    const disconnect = connect(doc);
    const x = createSharedFetchStore({ doc, fetch: c.host.fetch, settleMs: 0 });
    const swept: string[][] = [];
    x.onEvent((e) => e.type === "swept" && swept.push(e.keys));
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(c.docOf(a!))); // the load: IndexedDB, the tabs or a device
    await until(x.ensure({ url: `${URL_A}/new` })); // active: x sweeps what it has dated past 24 h
    expect(swept).toEqual(sweptAtOnce ? [[x.keyOf(old)]] : []);
    expect(x.snapshot(old)).toEqual(sweptAtOnce ? { status: "idle" } : { status: "success", data: "old" });
    x.destroy();
    disconnect();
    c.destroy();
  });

  it("a destroyed store sweeps nothing, not even a sweep it queued just before destroy()", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: "a's" });
    const mine = { url: `${URL_A}/mine` };
    await until(a!.ensure(mine));
    await until(b!.ensure({ url: `${URL_A}/b1` }));
    await tick(25 * HOUR); // b has seen a's key unasked-for for a day: a sweep would remove it
    void b!.ensure({ url: `${URL_A}/b2` }).catch(() => {}); // queues b's sweep in a microtask...
    b!.destroy(); // ...and b is gone before it runs
    await tick();
    expect(a!.snapshot(mine)).toEqual({ status: "success", data: "a's" });
    c.destroy();
  });
});
