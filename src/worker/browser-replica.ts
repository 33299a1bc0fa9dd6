import * as Y from "yjs";
import { randomId } from "../core/job.ts";
import { detectLocks } from "../core/locks.ts";
import { createSharedFetchStore, type CreateStoreOptions } from "../core/store.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { connectPeers } from "../sync/connect-peers.ts";
import { connectTabs } from "../sync/connect-tabs.ts";
import type { Connection } from "../sync/connection.ts";
import { holdLock, type LockManagerLike, type PortLike } from "./port.ts";
import { WORKER_LOCK_PREFIX, type BrowserConfig } from "./protocol.ts";
import { TabSession } from "./tab-session.ts";

export type BrowserReplicaOptions = {
  /**
   * Connects the doc to other devices, e.g. `(doc) => connectHocuspocus(doc, {...})`. Default:
   * y-websocket to the `peers` the tabs name in `connectBrowser`, if they name any.
   */
  connectPeers?: (doc: Y.Doc, config: BrowserConfig) => Connection | undefined;
  /** The worker's fetch (default: the worker's global fetch). */
  fetch?: typeof fetch;
  /** Further store options (settleMs, retentionMs, maxResultBytes, …) for every store of this worker. */
  store?: Omit<CreateStoreOptions, "doc" | "identity" | "awareness" | "fetch">;
  /** Default: `navigator.locks` of the worker. */
  locks?: LockManagerLike | null;
  /** Names this worker's lifetime lock (default: the SharedWorker's name). */
  lockName?: string;
};

export type BrowserReplica = {
  /** Serves one tab on this port (what a SharedWorker's `connect` event hands over). */
  accept(port: PortLike): void;
  /** The stores made so far, one per identity (tests and diagnostics). */
  stores(): SharedFetchStoreWithExtras[];
  /** Messages from tabs that failed validation and were dropped. */
  readonly malformed: number;
  destroy(): void;
};

/**
 * The browser's one replica: one Y.Doc, its IndexedDB persistence, its sync with other devices,
 * and one store per identity, shared by every tab connected to this worker. The doc is also
 * joined with other same-origin tabs or workers through connectTabs, so a tab that runs its own
 * replica (no SharedWorker, or opted out) and a worker that a crash replaced coordinate as tabs do.
 */
export function createBrowserReplica(options: BrowserReplicaOptions = {}): BrowserReplica {
  const locks = options.locks === null ? undefined : (options.locks ?? detectLocks());
  const scopeName = (globalThis as { name?: unknown }).name;
  const lock = WORKER_LOCK_PREFIX + (options.lockName ?? (typeof scopeName === "string" && scopeName ? scopeName : randomId()));
  let doc: Y.Doc | undefined;
  let name: string | undefined;
  const connections: Connection[] = [];
  let awareness: Connection["awareness"] | undefined;
  const stores = new Map<string, SharedFetchStoreWithExtras>();
  const sessions = new Set<TabSession>();
  let malformed = 0;
  let accepted = 0;
  let destroyed = false;
  // Claims name the worker's browser only once its lock is held: then its death is seen at once.
  let held: Promise<unknown> | undefined;
  let release: (() => void) | undefined;

  const open = async (config: BrowserConfig): Promise<{ store: SharedFetchStoreWithExtras; lock: string; doc: Y.Doc }> => {
    if (destroyed) throw new Error("shared-fetch worker: destroyed");
    if (name !== undefined && config.name !== name)
      throw new Error(`shared-fetch worker: this worker serves ${JSON.stringify(name)}, a tab asked for ${JSON.stringify(config.name)}`);
    if (!doc) {
      name = config.name;
      doc = new Y.Doc();
      const tabs = connectTabs(doc, { name: config.name });
      connections.push(tabs);
      const peers = options.connectPeers ? options.connectPeers(doc, config) : config.peers ? connectPeers(doc, config.peers) : undefined;
      if (peers) connections.push(peers);
      awareness = (peers ?? tabs).awareness;
      // The store (and its replica lock) comes after connectTabs' first sync: that sync asks Web
      // Locks whether any other replica lives, and the worker's own store must not count as one
      // (it would wait out the tabs' answer timeout, 250 ms, for answers no tab replica sends).
      held = Promise.all([locks ? holdLock(locks, lock).then((r) => (release = r)) : undefined, tabs.whenSynced]);
    }
    await held;
    const d = doc;
    let store = stores.get(config.identity);
    if (!store) {
      store = createSharedFetchStore({
        ...options.store,
        doc: d,
        identity: config.identity,
        ...(awareness ? { awareness } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        // The tab's own browser id: the worker arbitrates keys with tab replicas of that browser.
        ...(config.browserId !== undefined ? { browserId: config.browserId, keyLockScope: "" } : {}),
        ...(config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {}),
        ...(config.programLeaseMs !== undefined ? { programLeaseMs: config.programLeaseMs } : {}),
        ...(options.locks !== undefined ? { locks: options.locks } : {}),
      });
      stores.set(config.identity, store);
    }
    return { store, lock, doc: d };
  };

  const deps = {
    locks,
    open,
    onMalformed: () => void (malformed += 1),
    onClosed: (session: TabSession) => sessions.delete(session),
  };

  return {
    accept(port) {
      if (destroyed) return port.close();
      sessions.add(new TabSession(port, deps, accepted === 0));
      accepted += 1;
    },
    stores: () => [...stores.values()],
    get malformed() {
      return malformed;
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      for (const session of [...sessions]) session.close();
      for (const store of stores.values()) store.destroy();
      for (const c of connections) c.destroy();
      doc?.destroy();
      release?.();
    },
  };
}

type ConnectScope = { addEventListener(type: "connect", listener: (event: MessageEvent) => void): void };

/**
 * Call once at the top of your SharedWorker file: every tab that connects (`connectBrowser`) is
 * served by this worker's one replica. Returns the replica (for diagnostics).
 */
export function serveBrowserReplica(options: BrowserReplicaOptions = {}): BrowserReplica {
  const scope = globalThis as unknown as Partial<ConnectScope>;
  if (typeof scope.addEventListener !== "function")
    throw new TypeError("serveBrowserReplica: call it in a SharedWorker (no `connect` event here); see connectBrowser");
  const replica = createBrowserReplica(options);
  scope.addEventListener("connect", (event) => {
    const port = event.ports[0];
    if (port) replica.accept(port);
  });
  return replica;
}
