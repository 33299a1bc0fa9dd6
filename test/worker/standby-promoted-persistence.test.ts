/**
 * A warm standby promoted as the live worker dies persists the doc from then on, as a tab does:
 * it stores only while it holds the name's IndexedDB writer lock (a fallback tab holding it stores
 * for the browser), and its retention reads the database's mark that says whether this browser
 * ever synced the doc with other devices. Before, it stored every update beside the writer (extra
 * copies) and, reading no mark, dated every key it loaded at the load for its whole life.
 * Real browser replicas and stores, real BroadcastChannel (a dead worker's messages held: test/sync/
 * page-channels.ts), fake-indexeddb, FakeLocks.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/internals.ts";
import { WRITER_LOCK_PREFIX } from "../../src/sync/idb-writer-lock.ts";
import { PROTOCOL, type WorkerMessage } from "../../src/worker/protocol.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { pageChannels } from "../sync/page-channels.ts";
import { drain, poll, portTo, replica } from "./standby-harness.ts";

const HOUR = 3600_000;
const API = "https://api.example.test/promoted-persistence";
const OTHER = "https://api.example.test/promoted-persistence-other";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/**
 * Generation 0 records API's result and persists it, its clock `offsets.live` ms off; generation 1
 * stands by and catches up on its state (warm, its idle store made); generation 0's messages are
 * then held (it is dying). `promote(at)`: the clock `at` ms off, generation 0 dies, and once the
 * promoted worker's persistence read the database a tab says hello to it.
 */
async function warmStandby(prefix: string, offsets: { live: number }) {
  // As in a SharedWorker: no localStorage to keep any mark in.
  vi.stubGlobal("localStorage", undefined);
  const real = Date.now.bind(Date);
  let offset = offsets.live;
  vi.spyOn(Date, "now").mockImplementation(() => real() + offset);
  const channels = pageChannels();
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: { v: call.url === API ? "loaded-answer" : "answer-of-the-promoted" } });
  const locks = new FakeLocks();
  const name = `${prefix}-${Math.random().toString(36).slice(2)}`;
  const config = { name, identity: "anonymous", browserId: "b1" };

  channels.tag("worker"); // the channels its hello opens
  const live = replica(cleanups, locks, `${name}:0`, host);
  const tab = portTo(cleanups, live);
  await new Promise<void>((granted) => void locks.forTab("tab").request("tab-lock", {}, () => new Promise(() => granted())));
  tab.post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config });
  tab.post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  const ready = (await tab.next("ready")) as Extract<WorkerMessage, { t: "ready" }>;
  expect(await tab.next("settled")).toMatchObject({ snap: { status: "success" } });
  channels.tag(undefined);
  await vi.waitFor(async () => expect(await indexedDbText(name)).toContain("loaded-answer"), { timeout: 3000, interval: 10 });

  offset = 0;
  channels.tag("standby");
  const standby = replica(cleanups, locks, `${name}:1`, host);
  portTo(cleanups, standby).post({ t: "standby", v: PROTOCOL, config, watch: ready.lock });
  await poll(() => channels.opened("standby") >= 2); // its connectTabs' channel and inbox
  channels.tag(undefined);
  // The live worker answered that its whole state was sent (warm), and the idle store is made.
  await poll(() => channels.answered("standby") && standby.stores().length > 0);
  channels.busy("worker");

  // Resolves once a connection reads the updates store (the promoted worker's load: its mark is read).
  let read = false;
  const getAll = IDBObjectStore.prototype.getAll;
  vi.spyOn(IDBObjectStore.prototype, "getAll").mockImplementation(function (this: IDBObjectStore, ...args) {
    read ||= this.name === "updates";
    return getAll.apply(this, args);
  });
  const promote = async (at: number) => {
    offset = at;
    locks.crash(`${name}:0`);
    await poll(() => read);
    await drain();
    const next = portTo(cleanups, standby);
    next.post({ t: "hello", v: PROTOCOL, tab: "t2", lock: "tab-lock", config });
    return next;
  };
  return { locks, name, standby, promote };
}

it("a promoted worker stores nothing while a tab holds the writer lock, and its whole state once granted the lock", async () => {
  const { locks, name, standby, promote } = await warmStandby("promoted-writer", { live: 0 });
  // A tab replica of this browser (connectBrowser's fallback) asks for the writer lock, which the
  // live worker holds (it stores): granted at that worker's death, before the promoted worker's ask.
  let letGo!: () => void;
  const fallbackHolds = new Promise<void>(
    (granted) =>
      void locks.forTab("fallback").request(WRITER_LOCK_PREFIX + name, {}, () => new Promise<void>((r) => ((letGo = r), granted()))),
  );
  expect(locks.heldBy(`${name}:0`)).toContain(WRITER_LOCK_PREFIX + name);

  const next = await promote(0);
  await fallbackHolds;
  next.post({ t: "ensure", id: 2, kind: "fetch", mode: "ensure", req: { url: OTHER } });
  expect(await next.next("settled")).toMatchObject({ snap: { status: "success", data: { v: "answer-of-the-promoted" } } });
  await drain();
  expect(standby.stores()[0]!.snapshot({ url: OTHER }).status).toBe("success");
  // Not stored by the worker beside the writer (the fallback tab here stores nothing: no doc).
  expect(await indexedDbText(name)).not.toContain("answer-of-the-promoted");

  letGo();
  await vi.waitFor(async () => expect(await indexedDbText(name)).toContain("answer-of-the-promoted"), { timeout: 3000, interval: 10 });
  expect(locks.heldBy(`${name}:1`)).toContain(WRITER_LOCK_PREFIX + name);
});

it("a promoted worker on tabs alone reads the database's devices mark: a key loaded 25 h old is swept at its first sweep", async () => {
  // Generation 0 fetched the key 25 h ago (its clock then); the standby was born now.
  const { standby, promote } = await warmStandby("promoted-mark", { live: -25 * HOUR });
  const next = await promote(HOUR);
  next.post({ t: "ensure", id: 2, kind: "fetch", mode: "ensure", req: { url: OTHER } });
  await next.next("settled");
  const store = standby.stores()[0]!;
  // The ask's sweep dates the loaded key by its result (this device's clock): 26 h old, gone.
  await vi.waitFor(() => expect(internalsOf(store).records.results.keys()).toHaveLength(1), { timeout: 2000, interval: 10 });
  expect(store.snapshot({ url: API })).toEqual({ status: "idle" });
});
