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
import { connectTabs, createSharedFetchStore } from "../../src/index.ts";
import type { BrowserReplica } from "../../src/worker/browser-replica.ts";
import { PROTOCOL } from "../../src/worker/protocol.ts";
import { slowTab } from "../sync/page-channels.ts";
import { drain, liveWorkerThenStandby, poll, portTo as portOf } from "./standby-harness.ts";

const API = "https://api.example.test/standby-warm";
const OTHER = "https://api.example.test/standby-warm-other";
const MARK = "result-the-worker-holds";
const cleanups: (() => void)[] = [];
const portTo = (r: BrowserReplica) => portOf(cleanups, r);
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
  // Generation 0 records the result for a tab of its; busy, generation 1 starts to stand by.
  const { channels, host, locks, name, config, standby } = await liveWorkerThenStandby(cleanups, "stray", API, MARK);

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
