import * as Y from "yjs";
import { randomId } from "../core/job.ts";
import { detectLocks } from "../core/locks.ts";
import { internalsOf } from "../core/internals.ts";
import { createSharedFetchStore } from "../core/store.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { connectPeers } from "../sync/connect-peers.ts";
import { connectTabs } from "../sync/connect-tabs.ts";
import { connectionOrNothing, destroyEach, type Connection } from "../sync/connection.ts";
import { holdLock, type LockManagerLike, type PortLike } from "./port.ts";
import { WORKER_LOCK_PREFIX, type BrowserConfig } from "./protocol.ts";
import { prepareStandby, type ReplicaState, type Standby } from "./browser-standby.ts";
import { RETIRE_AFTER_MS } from "./replica-bounds.ts";
import { checkReplicaOptions, storeOptions, type BrowserReplicaOptions } from "./replica-options.ts";
import type { LiveAsk, Opened } from "./session-deps.ts";
import { TabSession } from "./tab-session.ts";

export { RETIRE_AFTER_MS };

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
  checkReplicaOptions(options);
  return startReplica(options);
}

/** createBrowserReplica past the check of its options (serveBrowserReplica checks them under its own name). */
export function startReplica(options: BrowserReplicaOptions): BrowserReplica {
  const locks = options.locks === null ? undefined : (options.locks ?? detectLocks());
  const scopeName = (globalThis as { name?: unknown }).name;
  const lockBase = options.lockName ?? (typeof scopeName === "string" && scopeName ? scopeName : randomId());
  const lock = WORKER_LOCK_PREFIX + lockBase;
  let doc: Y.Doc | undefined;
  let name: string | undefined;
  const connections: Connection[] = [];
  const closers: (() => void)[] = [];
  const stores = new Map<string, SharedFetchStoreWithExtras>();
  const sessions = new Set<TabSession>();
  let malformed = 0;
  let accepted = 0;
  let retireTimer: ReturnType<typeof setTimeout> | undefined;
  const anyTab = () => [...sessions].some((s) => s.present);
  /** Some tab was here once: with none now, every tab has left (a standby told of no tab lock cannot tell). */
  let hadTab = false;
  const retire = (): void => {
    if (state.destroyed || state.crashed || anyTab()) return;
    replica.destroy();
    options.onRetire?.();
  };
  /** `connecting`: a port connected, whose hello comes once its tab holds its lock (give it the default's time). */
  const onPresence = (connecting?: boolean, session?: TabSession): void => {
    // A tab that left (crash, close, back/forward cache) is no session of this worker's until its port says hello again.
    if (session) sessions[session.present ? "add" : "delete"](session);
    hadTab ||= anyTab();
    clearTimeout(retireTimer);
    const set = options.retireAfterMs ?? RETIRE_AFTER_MS;
    const after = connecting ? Math.max(set, RETIRE_AFTER_MS) : set;
    // Infinity: never retire (setTimeout would run it at once, as any delay past 2^31 - 1 ms).
    retireTimer = state.destroyed || anyTab() || after === Infinity ? undefined : setTimeout(retire, after);
  };
  // Claims name the worker's browser only once its lock is held (state.held): then its death is seen at once.
  let release: (() => void) | undefined;

  const store = (d: Y.Doc, config: BrowserConfig, storeLocks?: LockManagerLike): SharedFetchStoreWithExtras => {
    let made = stores.get(config.identity);
    if (!made) {
      made = createSharedFetchStore(storeOptions(options, d, config, state.awareness, storeLocks));
      stores.set(config.identity, made);
    }
    return made;
  };

  /** Whether the doc is connected to other devices (see serve). */
  let reaches = false;
  const checkName = (config: BrowserConfig): void => {
    if (state.destroyed) throw new Error("shared-fetch worker: destroyed");
    if (state.refusal) throw state.refusal;
    if (name !== undefined && config.name !== name)
      throw new Error(`shared-fetch worker: this worker serves ${JSON.stringify(name)}, a tab asked for ${JSON.stringify(config.name)}`);
  };

  /** Connects the doc to other devices and holds this worker's lock: from here on it is the browser's replica. */
  const serve = (d: Y.Doc, config: BrowserConfig, tabs: Connection, loaded?: Promise<unknown>): void => {
    let peers: Connection | undefined;
    // An async connector hands over a promise: taken for a connection, destroy() and crash() threw
    // at it before the doc was closed and the lock let go. Refused, every tab is told why (and
    // falls back) rather than served from a doc that reaches no other device; so is a connector
    // that throws, which left the doc open without the lock, for the next tab to start another
    // generation that threw again.
    try {
      peers = connectionOrNothing(
        "shared-fetch worker",
        options.connectPeers ? options.connectPeers(d, config) : config.peers ? connectPeers(d, config.peers) : undefined,
      );
    } catch (error) {
      state.refusal = error instanceof Error ? error : new Error(String(error));
      return closeDoc();
    }
    if (peers) connections.push(peers);
    reaches = !!peers;
    // The tabs' (the store follows the devices' from it): a tab replica of this browser on
    // connectTabs alone is heard only there, and hears this one's waits only there.
    state.awareness = tabs.awareness;
    // The store (and its replica lock) comes after connectTabs' first sync: that sync asks Web
    // Locks whether any other replica lives, and the worker's own store must not count as one
    // (it would wait out the tabs' answer timeout, 250 ms, for answers no tab replica sends).
    // Refused (a broken `locks`), each hello tells its tab so: no rejection is left unhandled until then.
    (state.held = Promise.all([locks ? holdLock(locks, lock).then((r) => (release = r)) : undefined, tabs.whenSynced, loaded])).catch(
      () => {},
    );
  };

  const open = async (config: BrowserConfig): Promise<Opened> => {
    checkName(config);
    if (standby) {
      standby.promote();
      // A warm standby's store may serve before this worker's lock is granted: its doc is live.
      const made = stores.get(config.identity);
      if (made && standby.warm()) return { store: made, lock, doc: doc!, held: state.held! };
    } else if (!doc) {
      name = config.name;
      doc = new Y.Doc();
      // The tab's mark: on a first visit (false) the first claims need not wait for the database to be read.
      const tabs = connectTabs(doc, { name: config.name, persisted: config.persisted, locks: locks ?? null });
      connections.push(tabs);
      serve(doc, config, tabs);
    }
    // Served, or refused (see serve), whichever way this worker became the browser's replica.
    checkName(config);
    await state.held;
    const d = doc!;
    return { store: store(d, config), lock, doc: d, held: state.held! };
  };

  // What the standby (browser-standby.ts) shares with this replica: the flags it reads, and serving.
  const state: ReplicaState = {
    options,
    locks,
    lockBase,
    connections,
    closers,
    destroyed: false,
    crashed: false,
    serve,
    store,
    deserted: () => hadTab && !anyTab(),
    retire,
  };
  /** Started in advance for the next generation. */
  let standby: Standby | undefined;
  const prepare = (config: BrowserConfig, watch: string, replica?: string): Promise<string> | undefined => {
    checkName(config);
    if (!doc) {
      name = config.name;
      standby = prepareStandby(state, (doc = new Y.Doc()), config, watch, replica);
    }
    return standby?.standing;
  };

  /** Closes the doc and what connects it (once: a refused worker closes them, and retires later). */
  const closeDoc = (): void => {
    destroyEach(connections.splice(0));
    for (const close of closers.splice(0)) close();
    doc?.destroy();
  };

  /**
   * As if this worker's renderer died (the devtools' crash): each store stops reading and writing
   * and lets its lock go (dev.crash), the doc's connections close, and the worker's lock is
   * released, so the tabs start the next generation, which takes the claims over by those locks.
   */
  const crash = (): void => {
    if (state.destroyed || state.crashed) return;
    state.crashed = true;
    for (const s of stores.values()) internalsOf(s).dev.crash();
    destroyEach(connections);
    for (const close of closers) close();
    for (const session of [...sessions]) session.close();
    release?.();
  };

  /** The standby's idle store, for asks a tab sends it in advance (undefined: it has none for them). */
  const shadow = async (config: BrowserConfig): Promise<SharedFetchStoreWithExtras | undefined> => {
    checkName(config);
    const made = await standby?.store;
    return made && made.identity === config.identity ? made : undefined;
  };

  // The asks with a retry policy waiting for each key, from every tab: a request whose asker left
  // is retried by the policy of one that still waits, as that tab's own replica would have.
  const live = new Map<string, Set<LiveAsk>>();
  let hostPage: string | undefined;
  const deps = {
    ask: (key: string, ask: LiveAsk, signal: AbortSignal, running: Promise<unknown>) => {
      const set = live.get(key) ?? new Set();
      live.set(key, set.add(ask));
      const done = () => void (set.delete(ask) && set.size === 0 && live.get(key) === set && live.delete(key));
      signal.addEventListener("abort", done);
      running.then(done, done);
    },
    retries: (key: string, self: () => boolean) => {
      for (const a of live.get(key) ?? []) if (a.asking !== self && a.asking()) return a.policy;
      return undefined;
    },
    locks,
    open,
    prepare,
    shadow,
    crash,
    // The first port's page started this worker: a later store of that page says hello on a later port.
    host: (first: boolean, page?: string) => (first && (hostPage = page), first || (page !== undefined && page === hostPage)),
    // Only where no connector could be: one in the worker file that connected nothing for this
    // config chose so, and a tab's own (the same connector, likely) would connect nothing either.
    alone: () => !reaches && !options.connectPeers,
    onMalformed: () => void (malformed += 1),
    onClosed: (session: TabSession) => sessions.delete(session),
    onPresence,
  };

  const replica: BrowserReplica = {
    accept(port) {
      if (state.destroyed || state.crashed) return port.close();
      const session = new TabSession(port, deps, accepted === 0);
      sessions.add(session);
      accepted += 1;
      // A port still without a hello by then (its tab crashed first, a probe) is no session of this
      // worker's: kept, its port stayed for the worker's life. A late hello on it makes it one again.
      setTimeout(() => session.present || sessions.delete(session), RETIRE_AFTER_MS);
      // With no tab here the count starts (or starts again), and a hello a moment later stops it
      // (its lock held first): a tab connecting as the worker counts down must not find it retired,
      // and a port that never says hello (an early start of a dead generation, let go; a tab that
      // crashed first) must not keep a worker nobody uses alive for good.
      onPresence(true);
    },
    stores: () => [...stores.values()],
    get malformed() {
      return malformed;
    },
    destroy() {
      if (state.destroyed) return;
      state.destroyed = true;
      clearTimeout(retireTimer);
      for (const session of [...sessions]) session.close();
      for (const store of stores.values()) store.destroy();
      closeDoc();
      release?.();
    },
  };
  return replica;
}
