/**
 * A "browser" for the worker tests under Node: one FakeLocks manager (crash = the browser
 * releasing a dead realm's locks), workers by SharedWorker name (each a real browser replica with
 * a real Y.Doc and store, reached through real MessageChannel ports), and tabs (connectBrowser).
 */
import { afterEach } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import type { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import type { BrowserReplicaOptions } from "../../src/worker/replica-options.ts";
import { connectBrowser, type BrowserStore, type ConnectBrowserOptions } from "../../src/worker/connect-browser.ts";
import type { LockManagerLike, PortLike } from "../../src/worker/port.ts";

let seq = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Runs `fn` after the current test. */
export function cleanup(fn: () => void): void {
  cleanups.push(fn);
}

/**
 * This simulated browser has SharedWorker, as the browsers the worker mode is for do (connectBrowser
 * makes a tab its own replica where the global is missing): a stand-in for the test, which starts
 * workers through its `worker` factory only, so the stand-in throws if anything constructs it.
 */
export function sharedWorkerHere(): void {
  const scope = globalThis as { SharedWorker?: unknown };
  if (typeof scope.SharedWorker === "function") return;
  scope.SharedWorker = function SharedWorker() {
    throw new Error("the worker tests start workers through connectBrowser's `worker` factory");
  };
  cleanup(() => delete scope.SharedWorker);
}

/**
 * `options`: the workers' own (a `connectPeers` that links their doc to a peer's, say);
 * `workerLocks`: the lock manager a worker is given (a refusing front on the browser's, say).
 */
export function browser(
  host: Host,
  {
    workerLocks,
    ...options
  }: Pick<BrowserReplicaOptions, "retireAfterMs" | "connectPeers" | "store"> & {
    workerLocks?: (workerName: string, real: LockManagerLike) => LockManagerLike;
  } = {},
) {
  sharedWorkerHere();
  const locks = new FakeLocks();
  const name = `app-${process.pid}-${++seq}`;
  const workers = new Map<string, BrowserReplica>();
  /** Workers that retired with no tab left, by name, in order. */
  const retired: string[] = [];
  const start = (workerName: string) => {
    let replica = workers.get(workerName);
    if (!replica) {
      const made: BrowserReplica = createBrowserReplica({
        locks: workerLocks ? workerLocks(workerName, locks.forTab(workerName)) : locks.forTab(workerName),
        lockName: workerName,
        fetch: host.fetch,
        store: { settleMs: 0 },
        ...options,
        // A retired worker closes itself: a later start of its name is a fresh worker.
        onRetire: () => {
          retired.push(workerName);
          if (workers.get(workerName) === made) workers.delete(workerName);
        },
      });
      replica = made;
      workers.set(workerName, replica);
      cleanups.push(() => replica!.destroy());
    }
    const channel = new MessageChannel();
    replica.accept(channel.port2 as unknown as MessagePort);
    return { port: channel.port1 as unknown as MessagePort };
  };
  let tabs = 0;
  const tab = (options: Partial<ConnectBrowserOptions> = {}): BrowserStore & { tag: string } => {
    const tag = `tab${++tabs}`;
    const store = connectBrowser({ name, worker: start, locks: locks.forTab(tag), ...options });
    cleanups.push(() => store.destroy());
    return Object.assign(store, { tag });
  };
  /** The worker's store of a generation (0: the first worker), once made. */
  const workerStore = (generation = 0) => {
    const store = workers.get(`shared-fetch:${name}:${generation}`)?.stores()[0];
    if (!store) throw new Error(`no store in worker generation ${generation} yet`);
    return store;
  };
  /**
   * The worker of a generation dies with the renderer it lives in: its locks go, its ports go
   * silent, and a later start of that name is a fresh worker, as in a browser.
   */
  const kill = (generation: number) => {
    const workerName = `shared-fetch:${name}:${generation}`;
    const replica = workers.get(workerName);
    if (!replica) throw new Error(`no worker of generation ${generation} to kill`);
    workers.delete(workerName);
    locks.crash(workerName);
    replica.destroy();
  };
  return { host, locks, workers, retired, tab, name, workerStore, kill, start };
}

/** Resolves once `check` holds, re-checked after each notification of `source` (a devtools model); fails after 3 s. */
export function untilNotified(source: { subscribe(f: () => void): () => void }, check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => (off(), reject(new Error(`never saw ${what}`))), 3000);
    const off = source.subscribe(() => {
      if (!check()) return;
      off();
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Resolves once `check` holds (checked every few ms: for state that has no event of its own). */
/** This tab's page events (pagehide, pageshow), dispatched by the test: the global listeners, restored at cleanup. */
export function pageEvents(): EventTarget {
  const page = new EventTarget();
  const g = globalThis as { addEventListener?: unknown; removeEventListener?: unknown };
  g.addEventListener = page.addEventListener.bind(page);
  g.removeEventListener = page.removeEventListener.bind(page);
  cleanup(() => {
    delete g.addEventListener;
    delete g.removeEventListener;
  });
  return page;
}

export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
}

/** `port` with what the tab posts from its hello on held back until `open` settles, in order (a tab busy as its worker dies). */
export function holdingHello(port: PortLike, open: Promise<unknown>): PortLike {
  let held: unknown[] | undefined;
  let sent = false;
  return {
    postMessage: (m: unknown) => {
      if (!held && (m as { t?: string }).t === "hello") {
        const queue: unknown[] = (held = []);
        void open.then(() => {
          sent = true;
          queue.forEach((x) => port.postMessage(x));
        });
      }
      if (held && !sent) held.push(m);
      else port.postMessage(m);
    },
    addEventListener: (t, f) => port.addEventListener(t, f),
    removeEventListener: (t, f) => port.removeEventListener(t, f),
    start: () => port.start?.(),
    close: () => port.close(),
  };
}

/**
 * A second tab of `b` (the first tab's page hosts the live worker, so this one starts the standby)
 * whose hello to that standby, once promoted, is held until `open` settles: a tab busy as its
 * worker dies. `whenHeld(key)`: the standby holds the tab's ask of `key` in advance (one waiter).
 */
export function tabBusyAtTakeover(b: ReturnType<typeof browser>, open: Promise<unknown>) {
  const next = `shared-fetch:${b.name}:1`;
  b.tab();
  const tab = b.tab({
    worker: (name) => {
      const worker = b.start(name);
      return name === next ? { port: holdingHello(worker.port, open) } : worker;
    },
  });
  const whenHeld = async (key: string) => {
    await until(() => b.workers.has(next));
    const standby = () => b.workers.get(next)!.stores()[0];
    await until(
      () =>
        standby()
          ?.inspect()
          .keys.find((k) => k.key === key)?.local?.waiters === 1,
    );
  };
  return { tab, whenHeld };
}

/** A worker warmed by a first tab's answered ask, and a second tab whose hello it reads only once `open()` is called. */
export async function warmWorkerHeldHello(host: Host) {
  host.auto = () => ({ status: 200, body: { n: 1 } });
  const b = browser(host);
  const first = b.tab();
  const warm = await first.ensure({ url: "https://api.example.test/warm" });
  if (warm.status !== "success") throw new Error(`the warm-up ask ended "${warm.status}", expected "success"`);
  host.auto = undefined;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const second = b.tab({ worker: (name) => ({ port: holdingHello(b.start(name).port, gate) }) });
  return { first, second, open };
}
