import * as Y from "yjs";
import { randomId } from "../core/job.ts";
import { detectLocks } from "../core/locks.ts";
import { internalsOf } from "../core/internals.ts";
import { createSharedFetchStore } from "../core/store.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { connectPeers } from "../sync/connect-peers.ts";
import { connectTabs, type TabsConnection } from "../sync/connect-tabs.ts";
import { hasIndexedDB } from "../sync/doc-persistence.ts";
import { persistDoc } from "../sync/indexeddb-persistence.ts";
import { connectionOrNothing, destroyEach, type Connection } from "../sync/connection.ts";
import { holdLock, watchLock, type LockManagerLike, type PortLike } from "./port.ts";
import { STANDBY_LOCK_PREFIX, WORKER_LOCK_PREFIX, type BrowserConfig } from "./protocol.ts";
import { KEY_LOCK_PREFIX, keyLockGate } from "./key-lock-gate.ts";
import { judgeClaims } from "./judge-claims.ts";
import { PERSIST_AFTER_MS, RETIRE_AFTER_MS } from "./replica-bounds.ts";
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
  let awareness: Connection["awareness"] | undefined;
  const stores = new Map<string, SharedFetchStoreWithExtras>();
  const sessions = new Set<TabSession>();
  let malformed = 0;
  let accepted = 0;
  let destroyed = false;
  let retireTimer: ReturnType<typeof setTimeout> | undefined;
  const anyTab = () => [...sessions].some((s) => s.present);
  /** Some tab was here once: with none now, every tab has left (a standby told of no tab lock cannot tell). */
  let hadTab = false;
  const retire = (): void => {
    if (destroyed || crashed || anyTab()) return;
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
    retireTimer = destroyed || anyTab() || after === Infinity ? undefined : setTimeout(retire, after);
  };
  // Claims name the worker's browser only once its lock is held: then its death is seen at once.
  let held: Promise<unknown> | undefined;
  let release: (() => void) | undefined;

  const store = (d: Y.Doc, config: BrowserConfig, storeLocks?: LockManagerLike): SharedFetchStoreWithExtras => {
    let made = stores.get(config.identity);
    if (!made) {
      made = createSharedFetchStore(storeOptions(options, d, config, awareness, storeLocks));
      stores.set(config.identity, made);
    }
    return made;
  };

  /** Whether the doc is connected to other devices (see serve). */
  let reaches = false;
  /** Why this worker serves no tab: its connector returned no connection (see serve). */
  let refusal: Error | undefined;
  const checkName = (config: BrowserConfig): void => {
    if (destroyed) throw new Error("shared-fetch worker: destroyed");
    if (refusal) throw refusal;
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
      refusal = error instanceof Error ? error : new Error(String(error));
      return closeDoc();
    }
    if (peers) connections.push(peers);
    reaches = !!peers;
    // The tabs' (the store follows the devices' from it): a tab replica of this browser on
    // connectTabs alone is heard only there, and hears this one's waits only there.
    awareness = tabs.awareness;
    // The store (and its replica lock) comes after connectTabs' first sync: that sync asks Web
    // Locks whether any other replica lives, and the worker's own store must not count as one
    // (it would wait out the tabs' answer timeout, 250 ms, for answers no tab replica sends).
    held = Promise.all([locks ? holdLock(locks, lock).then((r) => (release = r)) : undefined, tabs.whenSynced, loaded]);
  };

  const open = async (config: BrowserConfig): Promise<Opened> => {
    checkName(config);
    if (standby) {
      standby.promote();
      // A warm standby's store may serve before this worker's lock is granted: its doc is live.
      const made = stores.get(config.identity);
      if (made && standby.warm()) return { store: made, lock, doc: doc!, held: held! };
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
    await held;
    const d = doc!;
    return { store: store(d, config), lock, doc: d, held: held! };
  };

  /**
   * Started in advance for the next generation: a copy of the doc kept live by the current
   * worker over BroadcastChannel (no IndexedDB connection, no socket), and a place
   * in the queue for the current worker's lock. Its release (the worker died) promotes this one
   * at once: the doc is already there, so the tabs' re-sent requests find the dead worker's claims
   * without an IndexedDB read, and take them over by its released lock.
   */
  let standby: { promote: () => void; warm: () => boolean; store: Promise<SharedFetchStoreWithExtras | undefined> } | undefined;
  /** The standby's own lock, once held (held to the end, promoted or not: only death lets it go). */
  let standing: Promise<string> | undefined;
  const prepare = (config: BrowserConfig, watch: string, replica?: string): Promise<string> | undefined => {
    checkName(config);
    if (doc) return standing;
    name = config.name;
    if (locks) {
      const own = STANDBY_LOCK_PREFIX + lockBase;
      standing = holdLock(locks, own).then((release) => {
        if (destroyed || crashed) release();
        else closers.push(release);
        return own;
      });
    }
    const d = (doc = new Y.Doc());
    // Its connection tells whether it vouches for the doc (see promote): not in connectTabs' public type.
    const tabs = connectTabs(d, { name: config.name, indexeddb: false, locks: locks ?? null }) as TabsConnection;
    connections.push(tabs);
    let warm = false;
    let stopJudging: (() => void) | undefined;
    // The idle store's key locks are held back until promotion: it may wait on the tabs' asks in
    // advance (their takeover then starts at the live worker's death) but never claims before.
    let idle: SharedFetchStoreWithExtras | undefined;
    // A key whose claim by the live worker stands: that worker holds its lock, so a request for it
    // queues behind the live worker, and the browser grants it with that worker's death.
    const liveHolds = (lockName: string): boolean => {
      if (!idle || !replica) return false;
      const { records } = internalsOf(idle);
      for (let i = lockName.indexOf(":", KEY_LOCK_PREFIX.length); i >= 0; i = lockName.indexOf(":", i + 1)) {
        const claim = records.claims.get(lockName.slice(i + 1));
        if (claim) return claim.replicaId === replica && !claim.abandoned;
      }
      return false;
    };
    const gate = locks ? keyLockGate(locks, liveHolds) : undefined;
    const promote = (): void => {
      if (destroyed || held) return;
      // The live worker retired with every tab gone: nobody is left to serve (or to sign in for).
      if (hadTab && !anyTab()) return retire();
      stopWatch?.();
      gate?.open();
      // The watched lock was the live worker's: its stores died with it, their replica locks
      // too. Judged dead now, in this task: the grant of each replica lock this store queued for
      // would come as a later task, behind the tabs' hellos.
      if (idle && replica) {
        const { engine } = internalsOf(idle);
        engine.liveness.markReleased(replica);
        engine.markClaimantDirty(replica);
      }
      // Promoted, the store judges claims as any live store does, when someone asks.
      stopJudging?.();
      // Warm once the current worker's state came over the channel: a tab that read IndexedDB (that
      // worker, as a rule) answered that its state was sent. Any update heard is no sign of it:
      // another tab's write, or the worker's own, may come first, the worker dying before it answers.
      warm = tabs.vouched();
      if (!warm && !idle) {
        // Cold, and its first sync may still wait for an answer from the worker that just died
        // (up to the tabs' answer timeout): start over as a fresh worker does, IndexedDB included.
        tabs.destroy();
        connections.splice(connections.indexOf(tabs), 1);
        const fresh = connectTabs(d, { name: config.name, locks: locks ?? null });
        connections.push(fresh);
        return serve(d, config, fresh);
      }
      // Persist from now on. A warm doc already holds what IndexedDB holds (the dead worker wrote
      // both), so nothing waits for the read: it merges in when it comes, and it starts once the
      // key locks queued in advance are granted (at most PERSIST_AFTER_MS later), so that the read
      // and the write of the whole doc that follows it do not hold their grants up on this thread.
      // A cold one reads it first.
      let loaded: Promise<unknown> | undefined;
      if (hasIndexedDB()) {
        const persist = () => {
          if (destroyed || crashed || refusal) return undefined;
          // Stores beside the tabs only while it holds the name's writer lock, as a tab does.
          const persistence = persistDoc(config.name, d, undefined, locks);
          tabs.persistedBy(persistence);
          closers.push(() => void persistence.destroy());
          return persistence;
        };
        if (!warm) {
          // Read, or given up on: either way the replica serves. Read, it holds what the database
          // holds, and tells the tabs so (told "not loaded" for its life, the next standby stayed cold).
          loaded = persist()?.whenLoaded.then((read) => read && tabs.vouch());
        } else if (gate) {
          let started = false;
          const once = () => void (started || ((started = true), persist()));
          void gate.granted().then(once);
          setTimeout(once, PERSIST_AFTER_MS);
        } else persist();
      }
      serve(d, config, tabs, loaded);
    };
    let made: (s: SharedFetchStoreWithExtras | undefined) => void = () => {};
    standby = { promote, warm: () => warm, store: new Promise((resolve) => (made = resolve)) };
    // Granted asynchronously, after promote below has its stopWatch.
    const stopWatch = locks ? watchLock(locks, watch, promote) : undefined;
    // Without other devices the store can be made now (it writes nothing while idle): the
    // re-sent requests then find it ready, its lock held. With them it waits for promotion, so
    // that it gets the peers' presence, which connects only then (one socket per browser).
    const crossDevice = options.connectPeers !== undefined || config.peers !== undefined;
    // Asks sent in advance are served only by a store whose key locks are held back.
    if (!crossDevice) {
      awareness = tabs.awareness;
      void tabs.whenSynced.then(() => {
        if (destroyed || held) return made(undefined);
        const s = (idle = store(d, config, gate?.locks));
        stopJudging = judgeClaims(s, () => gate?.arm());
        made(gate ? s : undefined);
      });
    } else made(undefined);
    closers.push(() => (stopWatch?.(), stopJudging?.()));
    return standing;
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
    if (destroyed || crashed) return;
    crashed = true;
    for (const s of stores.values()) internalsOf(s).dev.crash();
    destroyEach(connections);
    for (const close of closers) close();
    for (const session of [...sessions]) session.close();
    release?.();
  };
  let crashed = false;

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
      if (destroyed || crashed) return port.close();
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
      if (destroyed) return;
      destroyed = true;
      clearTimeout(retireTimer);
      for (const session of [...sessions]) session.close();
      for (const store of stores.values()) store.destroy();
      closeDoc();
      release?.();
    },
  };
  return replica;
}
