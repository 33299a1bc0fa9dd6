/**
 * Every Web Lock of a SharedWorker replica goes through the LockManager its options name
 * (createBrowserReplica({ locks })): its worker and replica locks, its key locks, and those of its
 * connectTabs — the tab lock the flush counts tabs by, the IndexedDB writer lock and the lock state
 * read at boot — on a fresh worker and on a standby promoted cold (it starts over as a fresh worker
 * does). Before, its connectTabs took the global `navigator.locks`: half of the replica's locks came
 * from a manager it was never given, and a crash of the worker's realm (FakeLocks.crash) left its
 * tab and writer locks held. Real Yjs docs, stores and BroadcastChannel, fake-indexeddb, FakeLocks.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { TAB_LOCK_PREFIX } from "../../src/sync/tab-flush.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { PROTOCOL } from "../../src/worker/protocol.ts";
import { portTo, poll } from "./standby-harness.ts";

const API = "https://api.example.test/replica-locks-given";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.unstubAllGlobals();
});

/** `locks` with every name it is asked for (and each read of its lock state) written down. */
function recording(locks: LockManagerLike & { query(): Promise<{ held?: { name?: string }[] }> }) {
  const names: string[] = [];
  return {
    names,
    locks: {
      request: (name: string, options: Parameters<LockManagerLike["request"]>[1], callback: (lock: unknown) => unknown) => {
        names.push(name);
        return locks.request(name, options, callback);
      },
      query: () => (names.push("(query)"), locks.query()),
    } satisfies LockManagerLike,
  };
}

/** A global `navigator.locks` that must never be asked: the replica was given its own. */
function globalLocksUnused() {
  const global = recording(new FakeLocks().forTab("global"));
  vi.stubGlobal("navigator", { locks: global.locks });
  return global.names;
}

function replicaWith(locks: LockManagerLike, workerName: string, host: Host) {
  const r = createBrowserReplica({ locks, lockName: workerName, fetch: host.fetch, store: { settleMs: 0 } });
  cleanups.push(() => r.destroy());
  return r;
}

async function tabLockHeld(locks: FakeLocks): Promise<void> {
  await new Promise<void>((granted) => void locks.forTab("tab").request("tab-lock", {}, () => new Promise(() => granted())));
}

const ofName = (names: string[], name: string) => ({
  tabs: names.filter((n) => n.startsWith(`${TAB_LOCK_PREFIX}${name}#`)).length,
  writer: names.includes(`${WRITER_LOCK_PREFIX}${name}`),
  query: names.includes("(query)"),
});

it("a fresh worker takes every lock, its connectTabs' included, from the LockManager its options name", async () => {
  const globalNames = globalLocksUnused();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const locks = new FakeLocks();
  const name = `rlg-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const given = recording(locks.forTab(`${name}:0`));
  const worker = replicaWith(given.locks, `${name}:0`, host);
  const tab = portTo(cleanups, worker);
  await tabLockHeld(locks);
  tab.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config: { name, identity: "anonymous", browserId: "b1" } });
  tab.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  expect(await tab.next("settled")).toMatchObject({ snap: { status: "success", data: { v: 1 } } });
  await poll(() => ofName([...given.names, ...globalNames], name).writer);

  expect(ofName(given.names, name)).toEqual({ tabs: 1, writer: true, query: true });
  expect(given.names.some((n) => n.startsWith("shared-fetch:key:"))).toBe(true);
  expect(globalNames).toEqual([]);
});

it("a standby promoted cold starts its tabs' sync over on the LockManager its options name, not the global one", async () => {
  const globalNames = globalLocksUnused();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 2 } });
  const locks = new FakeLocks();
  const name = `rlc-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const config = { name, identity: "anonymous", browserId: "b1" };
  // The lock the standby watches, held by a realm that dies before the standby's first sync ends;
  // and a frozen tab of the name that never answers, so that the sync waits its whole bound.
  for (const [realm, held] of [
    ["holder", "watched"],
    ["frozen", `${TAB_LOCK_PREFIX}${name}#frozen`],
  ] as const)
    await new Promise<void>((granted) => void locks.forTab(realm).request(held, {}, () => new Promise(() => granted())));
  const given = recording(locks.forTab(`${name}:1`));
  const standby = replicaWith(given.locks, `${name}:1`, host);
  const tab = portTo(cleanups, standby);
  tab.post({ t: "standby", v: PROTOCOL, config, watch: "watched" });
  await poll(() => ofName([...given.names, ...globalNames], name).tabs === 1);
  expect(standby.stores()).toEqual([]);
  locks.crash("holder"); // the live worker's realm died: promoted with no store made, cold
  await tabLockHeld(locks);
  tab.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
  tab.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  expect(await tab.next("settled")).toMatchObject({ snap: { status: "success", data: { v: 2 } } });
  await poll(() => ofName([...given.names, ...globalNames], name).writer);

  // The standby's connectTabs and the fresh one it started over with: a tab lock each.
  expect(ofName(given.names, name)).toEqual({ tabs: 2, writer: true, query: true });
  expect(globalNames).toEqual([]);
});

it("a tab that is a replica of its own (connectBrowser without a worker) takes its connectTabs' locks from the `locks` it was given", async () => {
  const globalNames = globalLocksUnused();
  const name = `rlt-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const given = recording(new FakeLocks().forTab("tab"));
  const store = connectBrowser({ name, worker: false, locks: given.locks });
  cleanups.push(() => store.destroy());
  await poll(() => ofName([...given.names, ...globalNames], name).writer);

  expect(ofName(given.names, name)).toEqual({ tabs: 1, writer: true, query: true });
  expect(globalNames).toEqual([]);
});
