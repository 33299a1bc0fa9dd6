/**
 * A promoted standby serves at once, from its copy of the doc, only when that copy holds what the
 * live worker held (its "warm" flag); otherwise it reads IndexedDB first. The flag was set by the
 * first update the standby applied from the tabs' channel, whoever sent it: a tab of the app that
 * keeps no IndexedDB copy (`indexeddb: false`) recording a result of its own, heard before the live
 * worker (busy) answered, made it warm without the worker's state. Promoted as that worker died, it
 * served a doc without the result the worker had recorded, and a tab's ask sent the request again.
 * Real browser replicas and stores, real BroadcastChannel (a busy page's messages held until it is
 * free: test/sync/page-channels.ts), fake-indexeddb, FakeLocks.
 */
import "fake-indexeddb/auto";
import * as Y from "yjs";
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import { PROTOCOL, type WorkerMessage } from "../../src/worker/protocol.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { pageChannels, slowTab } from "../sync/page-channels.ts";
import { drain, poll, portTo as portOf, replica as replicaOf } from "./standby-harness.ts";

const API = "https://api.example.test/standby-warm";
const OTHER = "https://api.example.test/standby-warm-other";
const MARK = "result-the-worker-holds";
const cleanups: (() => void)[] = [];
const replica = (locks: FakeLocks, workerName: string, host: Host) => replicaOf(cleanups, locks, workerName, host);
const portTo = (r: ReturnType<typeof replicaOf>) => portOf(cleanups, r);
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.unstubAllGlobals();
});

/**
 * Generation 0 records a result; generation 1 stands by while generation 0 is busy, hears a tab
 * replica without IndexedDB record a result of its own, and is promoted as generation 0 dies
 * before answering it; a tab then asks for generation 0's result.
 */
async function promotedAfterStrayWrite() {
  vi.stubGlobal("localStorage", fakeStorage());
  const channels = pageChannels();
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: { v: call.url === API ? MARK : "other" } });
  const locks = new FakeLocks();
  const name = `stray-${process.pid}-${Math.random().toString(36).slice(2)}`;
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

  // The live worker is busy (its channel messages wait) as generation 1 starts to stand by.
  channels.busy("worker");
  channels.tag("standby");
  const standby = replica(locks, `${name}:1`, host);
  portTo(standby).post({ t: "standby", v: PROTOCOL, config, watch: ready.lock });
  await poll(() => channels.opened("standby") >= 2); // its connectTabs' channel and inbox
  channels.tag(undefined);

  // A tab of the app that keeps no IndexedDB copy records a result of its own: the standby hears it.
  const doc = new Y.Doc();
  const own = channels.as("own", () => connectTabs(doc, { name, indexeddb: false }));
  const store = createSharedFetchStore({ doc, fetch: host.fetchAs("own"), locks: locks.forTab("own"), settleMs: 0 });
  const closeStray = () => (store.destroy(), own.destroy(), doc.destroy());
  cleanups.push(closeStray);
  await expect(store.ensure({ url: OTHER })).resolves.toMatchObject({ status: "success" });
  await poll(() => standby.stores()[0]?.snapshot({ url: OTHER }).status === "success");

  // The live worker dies before it answered the standby: the standby is promoted, and a tab asks.
  locks.crash(`${name}:0`);
  const next = portTo(standby);
  next.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
  next.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  expect(await next.next("settled")).toMatchObject({ snap: { status: "success", data: { v: MARK } } });
  return { channels, host, locks, name, closeStray };
}

it("a standby that heard another replica's write but not the live worker's state is promoted cold: it reads IndexedDB before it serves, no second request", async () => {
  const { host, name } = await promotedAfterStrayWrite();
  expect(host.calls.filter((c) => c.url === API).map((c) => c.from)).toEqual([`${name}:0`]);
});

it("a standby promoted cold vouches for its doc once it read IndexedDB: a tab replica opening then is in sync from its answer, before reading its own database", async () => {
  const { channels, host, locks, name, closeStray } = await promotedAfterStrayWrite();
  closeStray(); // its tab closed: only the promoted standby answers (the dead worker never does)
  const own = channels.as("late", () => slowTab(name, host, locks, "late", (f) => cleanups.push(f)));
  await poll(() => channels.answered("late"));
  await drain();
  expect(own.seen.synced).toBe(true);
  expect(own.store.snapshot({ url: API })).toMatchObject({ status: "success", data: { v: MARK } });
});
