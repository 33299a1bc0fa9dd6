import { expect, onTestFinished, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type CreateStoreOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { Network } from "../../sim/network.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";

export const URL_A = "https://api.example.test/items";

export type Cluster = {
  net: Network;
  host: Host;
  stores: SharedFetchStoreWithExtras[];
  /** A new replica on a new doc joined to the network (e.g. a reload after a crash). */
  join(options?: Partial<CreateStoreOptions>, from?: Y.Doc): SharedFetchStoreWithExtras;
  /** A crash: the replica stops sending and receiving, without any orderly teardown. */
  crash(store: SharedFetchStoreWithExtras): void;
  docOf(store: SharedFetchStoreWithExtras): Y.Doc;
  destroy(): void;
};

/** Fake timers and both clocks (Date and the monotonic one, which moves with it). */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
}

/** N replicas, each with its own doc and store, all asking one controllable host. */
export function cluster(count: number, options: Partial<CreateStoreOptions> = {}): Cluster {
  const net = new Network(0);
  const host = new Host();
  const docs = new Map<SharedFetchStoreWithExtras, Y.Doc>();
  const join = (extra: Partial<CreateStoreOptions> = {}, from?: Y.Doc) => {
    // `from`: what a reloaded tab finds in its persistence (the crashed replica's doc).
    const doc = new Y.Doc();
    if (from) Y.applyUpdate(doc, Y.encodeStateAsUpdate(from));
    net.add(doc);
    const store = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 20, ...options, ...extra });
    docs.set(store, doc);
    c.stores.push(store);
    return store;
  };
  const c: Cluster = {
    net,
    host,
    stores: [],
    join,
    crash: (store) => net.remove(docs.get(store)!),
    docOf: (store) => docs.get(store)!,
    destroy: () => {
      for (const s of c.stores) s.destroy();
    },
  };
  for (let i = 0; i < count; i++) join();
  // Torn down even when an assertion fails first (destroy is idempotent).
  onTestFinished(() => c.destroy());
  return c;
}

/** Lets queued microtasks and due timers run (fake clock). */
export async function tick(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

/** Awaits a promise while the fake clock runs (settle windows and heartbeats are timers). */
export async function until<T>(promise: Promise<T>, stepMs = 10, maxMs = 600_000): Promise<T> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let waited = 0; !done && waited < maxMs; waited += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  return promise;
}

/** Starts work whose outcome the test does not await (a destroyed store rejects it). */
export function background<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** Two tabs of one browser: one lock manager, one browser id, both locks held. */
export async function twoTabs(options: Partial<CreateStoreOptions> = {}) {
  const locks = new FakeLocks();
  const c = cluster(0);
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", ...options });
  const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1", ...options });
  await tick();
  return { locks, c, a, b };
}

/**
 * Tabs `a` and `b` of browser-1: a claims a key (its claim names the browser) and b waits on it;
 * a's page crashes, its Web Lock let go by `dropLock`: b sends the request after the settle window
 * alone, far below the 5 s lease, and gets its answer (invariant 4, found by the lock).
 */
export async function crashFoundByLock(c: Cluster, a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras, dropLock: () => void) {
  const req = { url: URL_A };
  background(a.ensure(req));
  await tick(100);
  expect(b.claims()[0]![1]).toMatchObject({ replicaId: a.replicaId, browserId: "browser-1" });
  const waiting = b.ensure(req);
  await tick(100);
  expect(c.host.calls).toHaveLength(1);
  c.crash(a);
  dropLock();
  await tick(30);
  expect(c.host.calls).toHaveLength(2);
  c.host.calls[1]!.respond(200, "b");
  await expect(until(waiting)).resolves.toMatchObject({ data: "b" });
}

/**
 * `count` docs wired by hand, as a provider the store does not know of would: every update is
 * sent to the others, each delivered as a task of its own (setTimeout 0), as BroadcastChannel and
 * WebSocket deliver.
 */
export function wiredDocs(count: number): Y.Doc[] {
  const docs = Array.from({ length: count }, () => new Y.Doc());
  const net = Symbol("net");
  for (const doc of docs)
    doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === net) return;
      for (const other of docs) if (other !== doc) setTimeout(() => Y.applyUpdate(other, update, net), 0);
    });
  return docs;
}

/**
 * Runs `fn` on `store`'s device, whose wall clock runs `skewMs` off this process's (only wall time
 * moves: timers and the monotonic clock run on). What it writes meanwhile reaches the other
 * devices afterwards, on their clocks.
 */
export async function onDevice<T>(c: Cluster, store: SharedFetchStoreWithExtras, skewMs: number, fn: () => Promise<T>): Promise<T> {
  const doc = c.docOf(store);
  c.net.isolate(doc);
  vi.setSystemTime(Date.now() + skewMs);
  try {
    return await fn();
  } finally {
    vi.setSystemTime(Date.now() - skewMs);
    c.net.heal(doc);
  }
}
