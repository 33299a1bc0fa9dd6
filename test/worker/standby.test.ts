/**
 * The next generation's worker, started in advance ("standby"), under Node: real Yjs docs and
 * stores, a real BroadcastChannel between the workers, fake-indexeddb, FakeLocks standing in for
 * the browser's Web Locks (crash = the browser releasing a dead realm's locks). Scenario: the
 * worker's host tab crashes and its worker dies with it (issue 15, "within today's takeover
 * bounds"): the standby already holds a live doc, so the takeover reads no IndexedDB first.
 */
import "fake-indexeddb/auto";
import { IndexeddbPersistence } from "y-indexeddb";
import * as Y from "yjs";
import { afterEach, describe, expect, it } from "vitest";
import { openDocRecords } from "../../src/core/doc-records.ts";
import { validateProgramData } from "../../src/core/program-work.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { internalsOf } from "../../src/internals.ts";
import { parseWorkerMessage } from "../../src/worker/parse-worker-message.ts";
import { PROTOCOL, WORKER_LOCK_PREFIX, type WorkerMessage } from "../../src/worker/protocol.ts";
import { TAB_LOCK_PREFIX } from "../../src/sync/tab-flush.ts";

const API = "http://127.0.0.1:9/api/standby";
let seq = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Counts IndexedDB opens by database name (the tabs' own doc database is named after the app). */
function countOpens(): Map<string, number> {
  const opens = new Map<string, number>();
  const idb = globalThis.indexedDB;
  const open = idb.open.bind(idb);
  idb.open = (name: string, version?: number) => {
    opens.set(name, (opens.get(name) ?? 0) + 1);
    return open(name, version);
  };
  cleanups.push(() => void (idb.open = open));
  return opens;
}

function replica(locks: FakeLocks, workerName: string, host: Host): BrowserReplica {
  const r = createBrowserReplica({ locks: locks.forTab(workerName), lockName: workerName, fetch: host.fetch, store: { settleMs: 0 } });
  cleanups.push(() => r.destroy());
  return r;
}

/** A port to `r` as a tab holds it: what it posts, and the worker's messages as they arrive. */
function portTo(r: BrowserReplica): { post: (m: unknown) => void; got: WorkerMessage[]; next: (t: string) => Promise<WorkerMessage> } {
  const channel = new MessageChannel();
  r.accept(channel.port2 as unknown as MessagePort);
  const got: WorkerMessage[] = [];
  const waiting: { t: string; resolve: (m: WorkerMessage) => void }[] = [];
  channel.port1.addEventListener("message", (event: MessageEvent) => {
    const msg = parseWorkerMessage(event.data);
    if (!msg) return;
    got.push(msg);
    for (const w of waiting.filter((x) => x.t === msg.t)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(msg);
    }
  });
  channel.port1.start();
  cleanups.push(() => channel.port1.close());
  return {
    post: (m) => channel.port1.postMessage(m),
    got,
    next: (t) => new Promise((resolve) => waiting.push({ t, resolve })),
  };
}

/** Whether the doc's IndexedDB database holds a claim for `key` (read into a doc of its own). */
async function storedClaim(name: string, key: string): Promise<boolean> {
  const doc = new Y.Doc();
  const persistence = new IndexeddbPersistence(name, doc);
  await persistence.whenSynced;
  const found = openDocRecords(doc, validateProgramData).claims.get(key) !== undefined;
  await persistence.destroy();
  doc.destroy();
  return found;
}

/** Whether some realm holds the lock `name` now (a probe that takes it only if free). */
const isHeld = (locks: FakeLocks, name: string): Promise<boolean> =>
  locks.forTab("probe").request(name, { ifAvailable: true }, (lock) => lock === null) as Promise<boolean>;

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
};

/** Generation 0: the live worker, with a tab asking for API (its request hangs at the host). */
async function liveWorkerAsking(prefix: string) {
  const host = new Host();
  const locks = new FakeLocks();
  const name = `${prefix}-${process.pid}-${++seq}`;
  const config = { name, identity: "anonymous", browserId: "b1" };
  const live = replica(locks, `${name}:0`, host);
  const tab = portTo(live);
  const tabLock = locks.forTab("tab");
  await new Promise<void>((granted) => void tabLock.request("tab-lock", {}, () => new Promise(() => granted())));
  tab.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
  tab.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  const ready = await tab.next("ready");
  await host.whenCalls(1);
  return { host, locks, name, config, live, tab, ready };
}

/**
 * That worker's claim reaches IndexedDB, then it dies as a crashed renderer does (nothing more
 * from it on the channel, its locks let go).
 */
async function liveWorkerCrashedMidRequest(prefix: string) {
  const { host, locks, name, config, live, tab } = await liveWorkerAsking(prefix);
  const deadId = live.stores()[0]!.replicaId;
  // y-indexeddb writes each update.
  const key = live.stores()[0]!.keyOf({ url: API });
  while (!(await storedClaim(name, key))) await new Promise((r) => setTimeout(r, 5));
  tab.post({ t: "dev", action: "crash" });
  await until(() => internalsOf(live.stores()[0]!).dev.crashed);
  return { host, locks, name, config, deadId };
}

describe("the standby worker", () => {
  it("keeps a live copy of the doc over BroadcastChannel (no IndexedDB of its own) and is promoted the moment the worker's lock is released", async () => {
    const opens = countOpens();
    const { host, locks, name, config, live, ready } = await liveWorkerAsking("sb");
    expect(opens.get(name)).toBe(1);

    // Generation 1, started in advance and told what it stands by for.
    const standby = replica(locks, `${name}:1`, host);
    const other = portTo(standby);
    other.post({ t: "standby", v: PROTOCOL, config, watch: (ready as Extract<WorkerMessage, { t: "ready" }>).lock });
    // Its doc is the live worker's, through the tabs' channel: the claim is there, read from no database.
    await until(() => standby.stores().length === 1);
    const key = standby.stores()[0]!.keyOf({ url: API });
    await until(() =>
      standby
        .stores()[0]!
        .claims()
        .some(([k]) => k === key),
    );
    expect(opens.get(name)).toBe(1);
    expect(await isHeld(locks, `${WORKER_LOCK_PREFIX}${name}:1`)).toBe(false);

    // The live worker's realm dies: the browser frees its locks. No tab has said hello to the standby yet.
    locks.crash(`${name}:0`);
    live.destroy();
    let promoted = false;
    while (!promoted) promoted = await isHeld(locks, `${WORKER_LOCK_PREFIX}${name}:1`);
    // Promoted by the lock alone: it holds its own worker lock and persists the doc from now on
    // (its IndexedDB opens once the key locks it queued in advance are granted: none here).
    await until(() => opens.get(name) === 2);
    expect(opens.get(name)).toBe(2);

    // The tab re-sends what it wants right behind its hello; the standby's store takes the dead claim over.
    other.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
    other.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
    const calls = await host.whenCalls(2);
    calls[1]!.respond(200, { taken: "over" });
    const settled = await other.next("settled");
    expect(settled).toMatchObject({ t: "settled", id: 1, snap: { status: "success", data: { taken: "over" } } });
    expect(other.got.find((m) => m.t === "ready")).toMatchObject({ lock: `${WORKER_LOCK_PREFIX}${name}:1`, host: true });
  });

  it("a cold standby (the worker died before it answered the standby's sync) reads IndexedDB before it serves: the dead claim is taken over, not claimed anew", async () => {
    const { host, locks, name, config, deadId } = await liveWorkerCrashedMidRequest("sbc");
    // A standby told to watch a lock that is still held, with nobody left to answer its sync: cold.
    const holder = locks.forTab("holder");
    await new Promise<void>((granted) => void holder.request("watched", {}, () => new Promise(() => granted())));
    const standby = replica(locks, `${name}:1`, host);
    const other = portTo(standby);
    other.post({ t: "standby", v: PROTOCOL, config, watch: "watched" });
    await until(() => standby.stores().length === 1);
    expect(standby.stores()[0]!.claims()).toEqual([]);
    locks.crash("holder");
    other.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
    other.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
    const events: { type: string; takeoverOf?: string }[] = [];
    standby.stores()[0]!.onEvent((e) => events.push(e));
    const calls = await host.whenCalls(2);
    calls[1]!.respond(200, { taken: "over" });
    await other.next("settled");
    expect(events.find((e) => e.type === "claimed")).toMatchObject({ takeoverOf: deadId });
  });

  it("a standby promoted before its first sync ended (the worker died before answering it) starts over as a fresh worker: it reads IndexedDB and takes the dead claim over", async () => {
    const { host, locks, name, config, deadId } = await liveWorkerCrashedMidRequest("sbf");
    // The worker it watches holds its lock and, as any connectTabs, its tab lock: the standby's
    // first sync waits for that worker's answer, which never comes.
    const holder = locks.forTab("holder");
    for (const held of ["watched", `${TAB_LOCK_PREFIX}${name}#live`])
      await new Promise<void>((granted) => void holder.request(held, {}, () => new Promise(() => granted())));
    const standby = replica(locks, `${name}:1`, host);
    const other = portTo(standby);
    other.post({ t: "standby", v: PROTOCOL, config, watch: "watched" });
    // Promoted at once: no store made yet, its first sync unfinished.
    await new Promise((r) => setTimeout(r, 5));
    expect(standby.stores()).toEqual([]);
    locks.crash("holder");
    other.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
    other.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
    const calls = await host.whenCalls(2);
    calls[1]!.respond(200, { taken: "over" });
    expect(await other.next("settled")).toMatchObject({ snap: { status: "success", data: { taken: "over" } } });
    // It read the dead claim from IndexedDB and judged its claimant dead by its lock: a takeover.
    expect(internalsOf(standby.stores()[0]!).engine.liveness.departed().released.has(deadId)).toBe(true);
    expect(host.calls.length).toBe(2);
  });
});
