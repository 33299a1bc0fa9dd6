import { agreeBrowserId, getBrowserId } from "../core/browser-id.ts";
import { describe, SharedFetchInputError, shownValue } from "../core/errors.ts";
import { randomId } from "../core/job.ts";
import { detectLocks, type LockManagerLike } from "../core/locks.ts";
import { internalsOf, registerInternals } from "../core/internals.ts";
import { numberOption, warnUnknownOptions } from "../core/options.ts";
import type { Program, ProgramOptions, ProgramRequest, Snapshot } from "../core/types.ts";
import type { Connection } from "../sync/connection.ts";
import type { Doc } from "yjs";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { peersProblem, type PeersServer } from "../sync/peers-options.ts";
import { checkLocks, DEFAULT_LEASE_MS, DEFAULT_PROGRAM_LEASE_MS, leaseOption } from "../core/store-options.ts";
import { WorkerLink, type SharedWorkerLike } from "./worker-link.ts";
import type { BrowserConfig } from "./protocol.ts";
import { RemoteStore } from "./remote-store.ts";
import { registerRemoteInternals } from "./remote-internals.ts";

/** Where this tab's replica runs: the browser's SharedWorker, or the tab itself. */
export type ReplicaMode = "shared-worker" | "tab";

export type BrowserStore = SharedFetchStoreWithExtras & {
  /** Which of the two this tab got (the devtools show it); "tab" too once a worker failed. */
  readonly mode: ReplicaMode;
  /**
   * Why this tab is a replica of its own (mode "tab"): opted out, no worker factory, no
   * SharedWorker or Web Locks here, or how the worker failed (did not load, refused, no answer).
   */
  readonly modeReason: string | undefined;
  /** Like `refetch`, for a program; its signal withdraws this tab's interest (invariant 11). */
  refetchProgram(req: ProgramRequest, opts?: ProgramOptions): Promise<Snapshot<Program>>;
};

export type ConnectBrowserOptions = {
  /** Names the doc's IndexedDB database, BroadcastChannel and locks: one per doc and trust boundary. */
  name: string;
  identity?: string | undefined;
  leaseMs?: number | undefined;
  programLeaseMs?: number | undefined;
  /** A y-websocket server for other devices (the worker connects to it; a worker file may connect its own). */
  peers?: PeersServer | undefined;
  /**
   * Connects this tab's own replica (mode "tab") to other devices, e.g.
   * `(doc) => connectHocuspocus(doc, {...})`, as a worker file's `serveBrowserReplica({ connectPeers })`
   * connects the worker's, and called as that one is: with the doc and this tab's config (its name,
   * identity, leases and `peers` as given here). Instead of y-websocket to `peers`. The worker never
   * calls it (a function cannot reach it): give the worker file its own.
   */
  connectPeers?: ((doc: Doc, config: BrowserConfig) => Connection | undefined) | undefined;
  /**
   * Starts the browser's replica worker, e.g.
   * `(name) => new SharedWorker(new URL("./replica.worker.ts", import.meta.url), { type: "module", name })`.
   * Absent, `false`, or where SharedWorker or Web Locks do not exist: this tab is a replica of its own.
   */
  worker?: ((name: string) => SharedWorkerLike) | false | undefined;
  /**
   * Start the next generation's worker in advance from a tab that did not start the current one
   * (default true): it loads its script and opens nothing until the current worker dies.
   */
  standby?: boolean | undefined;
  /** The tab replica's fetch (the worker uses its own). */
  fetch?: typeof fetch | undefined;
  /** Web Locks (default `navigator.locks`); tests pass a fake. */
  locks?: LockManagerLike | undefined;
  /**
   * How long a worker may take to answer before this tab gives up on it and becomes a replica of
   * its own (default WORKER_READY_MS, 5 s; Infinity: never): a worker script that 404s or throws
   * never answers.
   */
  workerTimeoutMs?: number | undefined;
};

/**
 * One store per tab, with the replica where it costs least: in the browser's SharedWorker when
 * there is one (one doc, one socket, one IndexedDB connection for every tab; a crashed tab costs
 * nothing), else in the tab (connectTabs + createSharedFetchStore, as before). Same public surface
 * either way; `store.mode` says which. destroy() disconnects too. The tab's own replica is a chunk
 * loaded on demand (tab-replica.ts): a tab the worker serves loads none of Yjs or the engine.
 */
export function connectBrowser(options: ConnectBrowserOptions): BrowserStore {
  warnUnknownOptions("connectBrowser", options, {
    name: 0,
    identity: 0,
    leaseMs: 0,
    programLeaseMs: 0,
    peers: 0,
    connectPeers: 0,
    worker: 0,
    standby: 0,
    fetch: 0,
    locks: 0,
    workerTimeoutMs: 0,
  } satisfies Record<keyof ConnectBrowserOptions, 0>);
  if (!options || typeof options !== "object" || typeof options.name !== "string" || options.name === "")
    // The options may carry the peers' params (tokens): only the name is quoted.
    throw new SharedFetchInputError(
      `shared-fetch: connectBrowser needs { name: non-empty string }, got ${options && typeof options === "object" ? `name ${describe(options.name)}` : describe(options)}`,
    );
  const identity = options.identity ?? "anonymous";
  if (typeof identity !== "string") throw new SharedFetchInputError(`shared-fetch: identity must be a string, got ${shownValue(identity)}`);
  // Where the app passed a SharedWorker, its URL or a `standby` that is no boolean, the tab quietly
  // ran a replica of its own ("no worker factory given"), or took "no" for yes.
  const { worker, standby } = options;
  if (worker !== undefined && worker !== false && typeof worker !== "function")
    throw new SharedFetchInputError(
      `shared-fetch: worker must be a function (name) => new SharedWorker(…), or false, when given, got ${shownValue(worker)}`,
    );
  if (standby !== undefined && typeof standby !== "boolean")
    throw new SharedFetchInputError(`shared-fetch: standby must be a boolean when given, got ${shownValue(standby)}`);
  const locks = options.locks ?? detectLocks();
  // Whatever the app injects (`locks` too), a browser without SharedWorker has no worker to serve
  // the tab: the factory would only throw. Tests under Node stand one in, as the browser they simulate.
  const noWorker =
    options.worker === false
      ? "opted out (worker: false)"
      : typeof options.worker !== "function"
        ? "no worker factory given"
        : typeof SharedWorker !== "function"
          ? "no SharedWorker here"
          : !locks
            ? "no Web Locks here"
            : undefined;
  // Checked here, whichever replica serves the tab: the worker, or the tab's own made later (a
  // chunk of its own), would find them bad too late to tell the caller.
  const leaseMs = leaseOption("leaseMs", options.leaseMs, DEFAULT_LEASE_MS);
  const programLeaseMs = leaseOption("programLeaseMs", options.programLeaseMs, DEFAULT_PROGRAM_LEASE_MS);
  for (const fn of ["fetch", "connectPeers"] as const)
    if (options[fn] !== undefined && typeof options[fn] !== "function")
      throw new SharedFetchInputError(`shared-fetch: ${fn} must be a function when given, got ${shownValue(options[fn])}`);
  const peersBad = options.peers === undefined ? undefined : peersProblem(options.peers, "peers");
  if (peersBad !== undefined) throw new SharedFetchInputError(`shared-fetch: connectBrowser's ${peersBad}`);
  checkLocks(options.locks);
  // Infinity: never give up on the worker. A finite bound past 2^31 - 1 ms would fire at once (setTimeout).
  const wait = options.workerTimeoutMs;
  if (wait !== undefined && wait !== Infinity) numberOption("workerTimeoutMs", wait, 0, { min: "non-negative", max: 2 ** 31 - 1 });

  const tabId = randomId();
  const store = new RemoteStore(identity, leaseMs, programLeaseMs, tabId);
  registerRemoteInternals(store);
  let reason: string | undefined;
  let destroyed = false;
  // The tab becomes a replica of its own: at once where no worker can serve it, or once the worker
  // failed. What it asked meanwhile waits in the store (pending, never idle) and is asked there.
  // Should the replica's chunk not load, or the replica not be made (no WebSocket for its peers,
  // say), nothing answers the asks: they stay pending (never idle, nothing thrown into React),
  // and the console says why, once.
  const becomeReplica = (why: string, noLocks?: boolean) => {
    reason = why;
    const report = (what: string) => (error: unknown) =>
      console.error(`shared-fetch: this tab's replica ${what} (${why}); its requests stay pending`, error);
    import("./tab-replica.ts")
      .then(({ tabReplica }) => {
        if (destroyed) return;
        // Locks that refused the tab's lock would refuse its keys' too: the claims would wait for good.
        const local = tabReplica(options, identity, noLocks ? null : options.locks);
        // The devtools find the tab replica's records, engine and simulations behind this same store.
        registerInternals(store, internalsOf(local));
        store.fallBack(local);
      }, report("failed to load"))
      .catch(report("could not be made"));
  };
  let link: WorkerLink | undefined;
  /** Once per store (see onAlone). */
  let warn = options.connectPeers !== undefined;
  if (noWorker !== undefined || !locks || typeof options.worker !== "function") becomeReplica(noWorker ?? "no Web Locks here");
  else {
    const browserId = getBrowserId();
    const config: BrowserConfig = {
      name: options.name,
      identity,
      browserId,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.programLeaseMs !== undefined ? { programLeaseMs: options.programLeaseMs } : {}),
      // Only what the worker reads: anything else on the app's object might not survive postMessage.
      ...(options.peers ? { peers: serverOf(options.peers) } : {}),
    };
    // The browser id every tab agrees on, before the first hello names it to the worker.
    const agreed = agreeBrowserId(locks, browserId).then((id) => void (config.browserId = id));
    link = new WorkerLink({
      store,
      locks,
      config,
      tabId,
      start: options.worker,
      before: agreed,
      standby: options.standby !== false,
      // Never after destroy: link.stop() ends the link's failures too.
      onFail: becomeReplica,
      // A function cannot be posted to the worker: with the stock worker file and no `peers`, this
      // tab would reach no other device, silently.
      onAlone: () => {
        if (warn)
          console.warn(
            "shared-fetch: connectBrowser's connectPeers connects only a tab that is a replica of its own; this tab's SharedWorker reaches no other device: give the worker file its own (serveBrowserReplica({ connectPeers }))",
          );
        warn = false;
      },
      ...(options.workerTimeoutMs !== undefined ? { timeoutMs: options.workerTimeoutMs } : {}),
    });
  }
  const destroy = store.destroy.bind(store);
  return Object.defineProperties(store, {
    mode: { get: () => (reason === undefined ? "shared-worker" : "tab"), enumerable: true },
    modeReason: { get: () => reason, enumerable: true },
    destroy: {
      value: () => {
        destroyed = true;
        destroy();
        link?.stop();
      },
    },
  }) as RemoteStore & BrowserStore;
}

function serverOf({ url, room, params }: PeersServer): PeersServer {
  return { url, room, ...(params ? { params: { ...params } } : {}) };
}
