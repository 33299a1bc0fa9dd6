/**
 * Issue 10, time to data with the SharedWorker replica. A worker has no localStorage, so it cannot
 * read the mark that lets a first visit claim before IndexedDB is read: the tab reads it for the
 * worker and says so in its hello (and sets it, since the worker persists from then on). And the
 * tab starts the worker of the generation its localStorage names at once, so the worker's script
 * loads while the tab agrees the browser id and asks Web Locks which generation lives; the worker
 * it started is used when that generation lives, let go when a later one does. Real ports, stores
 * and Yjs docs; fake-indexeddb; FakeLocks.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { parseTabMessage } from "../../src/worker/parse-tab-message.ts";
import { PROTOCOL, WORKER_LOCK_PREFIX, type TabMessage } from "../../src/worker/protocol.ts";
import { RemoteStore } from "../../src/worker/remote-store.ts";
import { workerName } from "../../src/worker/worker-generations.ts";
import { WorkerLink, type SharedWorkerLike } from "../../src/worker/worker-link.ts";
import { fakeStorage, markKey, noOtherReplica, settled, slowIndexedDB } from "../sync/boot-fakes.ts";
import { cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/first-request";
let seq = 0;
afterEach(() => void vi.unstubAllGlobals());

/** Workers the link starts, by name: what each got on its port, whether the tab let go of it, and its error event. */
function workers() {
  const started: { name: string; got: TabMessage[]; closed: boolean; fail: (message: string) => void }[] = [];
  const start = (name: string): SharedWorkerLike => {
    const channel = new MessageChannel();
    cleanup(() => (channel.port1.close(), channel.port2.close()));
    const onError: ((event: Event) => void)[] = [];
    const entry = {
      name,
      got: [] as TabMessage[],
      closed: false,
      fail: (message: string) => onError.forEach((l) => l(Object.assign(new Event("error"), { message }))),
    };
    channel.port2.onmessage = (event) => {
      const msg = parseTabMessage(event.data);
      if (msg) entry.got.push(msg);
    };
    const port = channel.port1 as unknown as MessagePort;
    const close = port.close.bind(port);
    port.close = () => ((entry.closed = true), close());
    started.push(entry);
    return { port, addEventListener: (_type, listener) => void onError.push(listener) };
  };
  return { started, start };
}

function link(options: { name: string; start: (name: string) => SharedWorkerLike; before?: Promise<unknown>; liveGeneration?: number }) {
  const tabId = `tab-${++seq}`;
  const fake = new FakeLocks();
  const locks = fake.forTab(tabId);
  // The live generation's worker holds its lock, as query says: the tab watches it from its hello.
  const live = options.liveGeneration === undefined ? undefined : WORKER_LOCK_PREFIX + workerName(options.name, options.liveGeneration);
  if (live) void fake.forTab("worker").request(live, { mode: "exclusive" }, () => new Promise(() => {}));
  const query = async () => ({
    held: options.liveGeneration === undefined ? [] : [{ name: WORKER_LOCK_PREFIX + workerName(options.name, options.liveGeneration) }],
  });
  const failures: string[] = [];
  const made = new WorkerLink({
    store: new RemoteStore("u", 1500, 1500, tabId),
    locks: { ...locks, query },
    config: { name: options.name, identity: "u" },
    tabId,
    start: options.start,
    standby: false,
    onFail: (reason) => failures.push(reason),
    ...(options.before ? { before: options.before } : {}),
  });
  cleanup(() => made.stop());
  return { failures };
}

/** The browser id agreement, held until `open()`. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const appName = () => `fr-${process.pid}-${++seq}`;

const hellos = (got: TabMessage[]) => got.filter((m): m is Extract<TabMessage, { t: "hello" }> => m.t === "hello");

describe("the tab starts its worker before it knows the live generation", () => {
  it("the stored generation's worker starts before the browser id is agreed, and gets the hello: one worker started", async () => {
    const name = appName();
    vi.stubGlobal("localStorage", fakeStorage({ [`shared-fetch:worker-generation:${name}`]: "3" }));
    const { started, start } = workers();
    const agreement = gate();
    link({ name, start, before: agreement.promise, liveGeneration: 3 });
    // A microtask later (a store destroyed at once starts none: host-page-store-made-again.test.ts).
    await Promise.resolve();
    expect(started.map((w) => w.name)).toEqual([workerName(name, 3)]);
    await new Promise((r) => setTimeout(r, 20));
    expect(started[0]!.got).toEqual([]); // no hello before the agreement
    agreement.open();
    await until(() => hellos(started[0]!.got).length === 1);
    expect(started).toHaveLength(1);
    expect(started[0]!.closed).toBe(false);
  });

  it("a later generation lives (a takeover this tab's storage missed): the early worker is let go, the live one gets the hello", async () => {
    const name = appName();
    vi.stubGlobal("localStorage", fakeStorage());
    const { started, start } = workers();
    link({ name, start, liveGeneration: 2 });
    await until(() => started.length === 2 && hellos(started[1]!.got).length === 1);
    expect(started.map((w) => w.name)).toEqual([workerName(name, 0), workerName(name, 2)]);
    expect(started[0]!.closed).toBe(true);
    expect(hellos(started[0]!.got)).toEqual([]);
  });

  it("an early worker that fails to load before the tab listens on it: the tab falls back, naming the error", async () => {
    const name = appName();
    vi.stubGlobal("localStorage", fakeStorage());
    const { started, start } = workers();
    const agreement = gate();
    const { failures } = link({ name, start, before: agreement.promise });
    await Promise.resolve();
    started[0]!.fail("Failed to fetch a worker script");
    agreement.open();
    await until(() => failures.length === 1);
    expect(failures).toEqual(["the SharedWorker failed to load: Failed to fetch a worker script"]);
    expect(hellos(started[0]!.got)).toEqual([]);
  });

  it("hidden (pagehide) before the live generation is known, shown again on a later one: the early worker is let go", async () => {
    const name = appName();
    vi.stubGlobal("localStorage", fakeStorage());
    const page = new EventTarget();
    vi.stubGlobal("addEventListener", page.addEventListener.bind(page));
    vi.stubGlobal("removeEventListener", page.removeEventListener.bind(page));
    const { started, start } = workers();
    const agreement = gate();
    link({ name, start, before: agreement.promise });
    page.dispatchEvent(new Event("pagehide"));
    agreement.open();
    await new Promise((r) => setTimeout(r, 20));
    expect(started.map((w) => w.name)).toEqual([workerName(name, 0)]);
    // Back from the back/forward cache with no worker answered: the tab moves to the next generation.
    page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
    await until(() => started.length === 2 && hellos(started[1]!.got).length === 1);
    expect(started.map((w) => w.name)).toEqual([workerName(name, 0), workerName(name, 1)]);
    expect(started[0]!.closed).toBe(true);
    expect(hellos(started[0]!.got)).toEqual([]);
  });

  it("without storage to read (storage denied) no worker starts before the live generation is known", async () => {
    const name = appName();
    vi.stubGlobal("localStorage", undefined);
    const { started, start } = workers();
    const agreement = gate();
    link({ name, start, before: agreement.promise, liveGeneration: 1 });
    expect(started).toEqual([]);
    agreement.open();
    await until(() => started.length === 1 && hellos(started[0]!.got).length === 1);
    expect(started.map((w) => w.name)).toEqual([workerName(name, 1)]);
  });
});

describe("the hello tells the worker whether IndexedDB may hold the doc", () => {
  it("a first visit says no and sets the mark; a hello after it says maybe", async () => {
    const name = appName();
    const storage = fakeStorage();
    vi.stubGlobal("localStorage", storage);
    const first = workers();
    link({ name, start: first.start });
    await until(() => first.started.length === 1 && hellos(first.started[0]!.got).length === 1);
    expect(hellos(first.started[0]!.got)[0]!.config.persisted).toBe(false);
    expect(storage.items.get(markKey(name))).toBe("1");
    const second = workers();
    link({ name, start: second.start });
    await until(() => second.started.length === 1 && hellos(second.started[0]!.got).length === 1);
    expect(hellos(second.started[0]!.got)[0]!.config.persisted).toBe(true);
  });

  // The worker's realm has no localStorage: only its hello says what the tab read.
  it("told `persisted: false` (a first visit), the worker's first request leaves while its IndexedDB is still unread", async () => {
    const w = await workerAlone({ persisted: false });
    await w.host.whenCalls(1);
    expect(w.host.calls).toHaveLength(1);
  });

  it("told nothing of it (an older tab), the worker reads its IndexedDB before its first request", async () => {
    const w = await workerAlone({});
    expect(await settled(w.host.whenCalls(1))).toBe(false);
    w.slow.release();
    await w.host.whenCalls(1);
    expect(w.host.calls).toHaveLength(1);
  });
});

/** A worker (no localStorage, an IndexedDB that opens only when released) and one tab's hello and ask. */
async function workerAlone(hint: { persisted?: boolean }) {
  vi.stubGlobal("localStorage", undefined);
  vi.stubGlobal("navigator", noOtherReplica);
  const slow = slowIndexedDB();
  vi.stubGlobal("indexedDB", slow.factory);
  const host = new Host();
  host.auto = () => ({ status: 200, body: {} });
  const locks = new FakeLocks();
  const name = appName();
  const replica = createBrowserReplica({ locks: locks.forTab("w"), lockName: `${name}:0`, fetch: host.fetch, store: { settleMs: 0 } });
  cleanup(() => replica.destroy());
  const channel = new MessageChannel();
  replica.accept(channel.port2 as unknown as MessagePort);
  cleanup(() => channel.port1.close());
  const post = (m: TabMessage) => channel.port1.postMessage(m);
  // The tab's lifetime lock, held: a free one would tell the worker this tab died.
  await new Promise<void>((granted) => void locks.forTab("tab").request("tab-lock", {}, () => new Promise(() => granted())));
  post({ t: "hello", v: PROTOCOL, tab: "t1", lock: "tab-lock", config: { name, identity: "u", ...hint } });
  post({ t: "ensure", id: 1, kind: "fetch", mode: "ensure", req: { url: API } });
  return { host, slow };
}
