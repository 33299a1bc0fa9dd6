/**
 * DESIGN.md's one request per key inside a browser, across a standby's start. The standby (the
 * next generation's worker, started in advance) keeps its copy of the doc without IndexedDB: it
 * holds what the database holds only once the live worker's state has reached it. It answered a
 * tab's sync query "loaded" from its first instant: a tab replica of its own (connectBrowser's
 * fallback) opening while the live worker was busy took the standby's empty doc for everything,
 * was in sync before reading IndexedDB, and sent again the request whose result the worker held.
 * Real browser replicas and stores, real BroadcastChannel (a busy page's messages held until it
 * is free: test/sync/page-channels.ts), fake-indexeddb, FakeLocks.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { parseWorkerMessage, PROTOCOL, type WorkerMessage } from "../../src/worker/protocol.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { pageChannels, slowTab } from "../sync/page-channels.ts";

const API = "https://api.example.test/standby-caught-up";
const MARK = "result-the-worker-holds";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.unstubAllGlobals();
});

const poll = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
};
/** Lets every promise reaction queued by a delivered message run. */
const drain = () => new Promise((r) => setImmediate(r));

function replica(locks: FakeLocks, workerName: string, host: Host): BrowserReplica {
  const r = createBrowserReplica({
    locks: locks.forTab(workerName),
    lockName: workerName,
    fetch: host.fetchAs(workerName),
    store: { settleMs: 0 },
  });
  cleanups.push(() => r.destroy());
  return r;
}

/** A tab's port to `r`: what it posts, and the next worker message of a kind. */
function portTo(r: BrowserReplica) {
  const channel = new MessageChannel();
  r.accept(channel.port2 as unknown as MessagePort);
  const waiting: { t: string; resolve: (m: WorkerMessage) => void }[] = [];
  channel.port1.addEventListener("message", (event: MessageEvent) => {
    const msg = parseWorkerMessage(event.data);
    const i = waiting.findIndex((w) => w.t === msg?.t);
    if (msg && i >= 0) waiting.splice(i, 1)[0]!.resolve(msg);
  });
  channel.port1.start();
  cleanups.push(() => channel.port1.close());
  return {
    post: (m: unknown) => channel.port1.postMessage(m),
    next: (t: string) => new Promise<WorkerMessage>((resolve) => waiting.push({ t, resolve })),
  };
}

it("a tab replica opening as the standby starts, the live worker busy, is not in sync on the standby's empty doc: no second request", async () => {
  vi.stubGlobal("localStorage", fakeStorage());
  const channels = pageChannels();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: MARK } });
  const locks = new FakeLocks();
  const name = `caught-up-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const config = { name, identity: "anonymous", browserId: "b1" };

  // Generation 0 records the result (and persists it); a tab of its holds its lock.
  channels.tag("worker");
  const live = replica(locks, `${name}:0`, host);
  const tab = portTo(live);
  await new Promise<void>((granted) => void locks.forTab("tab").request("tab-lock", {}, () => new Promise(() => granted())));
  tab.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
  tab.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  const ready = (await tab.next("ready")) as Extract<WorkerMessage, { t: "ready" }>;
  expect(await tab.next("settled")).toMatchObject({ snap: { status: "success", data: { v: MARK } } });
  channels.tag(undefined);
  await vi.waitFor(async () => expect(await indexedDbText(name)).toContain(MARK), { timeout: 3000, interval: 10 });

  // The live worker is busy (its channel messages wait) as generation 1 starts to stand by ...
  channels.busy("worker");
  channels.tag("standby");
  const standby = replica(locks, `${name}:1`, host);
  portTo(standby).post({ t: "standby", v: PROTOCOL, config, watch: ready.lock });
  await poll(() => channels.opened("standby") >= 2); // its connectTabs' channel and inbox
  channels.tag(undefined);

  // ... and a tab replica of this browser opens, its IndexedDB slow to open.
  const own = channels.as("own", () => slowTab(name, host, locks, "own", (f) => cleanups.push(f)));
  const got = own.store.ensure({ url: API });
  await poll(() => channels.answered("own")); // the standby's answer
  await drain();
  expect(own.seen.synced).toBe(false);

  channels.free("worker");
  await expect(got).resolves.toMatchObject({ status: "success", data: { v: MARK } });
  expect(host.calls.map((c) => c.from)).toEqual([`${name}:0`]);
});
