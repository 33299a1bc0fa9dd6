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
import { PROTOCOL, type WorkerMessage } from "../../src/worker/protocol.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { pageChannels, slowTab } from "../sync/page-channels.ts";
import { drain, poll, portTo as portOf, replica as replicaOf } from "./standby-harness.ts";

const API = "https://api.example.test/standby-caught-up";
const MARK = "result-the-worker-holds";
const cleanups: (() => void)[] = [];
const replica = (locks: FakeLocks, workerName: string, host: Host) => replicaOf(cleanups, locks, workerName, host);
const portTo = (r: ReturnType<typeof replicaOf>) => portOf(cleanups, r);
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.unstubAllGlobals();
});

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
