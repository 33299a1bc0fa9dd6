import type * as Y from "yjs";
import { internalsOf } from "../core/internals.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { connectTabs, type TabsConnection } from "../sync/connect-tabs.ts";
import { hasIndexedDB } from "../sync/doc-persistence.ts";
import { persistDoc } from "../sync/indexeddb-persistence.ts";
import type { Connection } from "../sync/connection.ts";
import { holdLock, watchLock, type LockManagerLike } from "./port.ts";
import { STANDBY_LOCK_PREFIX, type BrowserConfig } from "./protocol.ts";
import { KEY_LOCK_PREFIX, keyLockGate } from "./key-lock-gate.ts";
import { judgeClaims } from "./judge-claims.ts";
import { PERSIST_AFTER_MS } from "./replica-bounds.ts";
import type { BrowserReplicaOptions } from "./replica-options.ts";

/**
 * The browser replica's state that its standby reads and changes: one object, so that a flag the
 * replica sets (destroyed, crashed, held) is what the standby's later callbacks see, and back.
 */
export type ReplicaState = {
  readonly options: BrowserReplicaOptions;
  readonly locks: LockManagerLike | undefined;
  /** The worker's lock names end with it (the scope's name, or random). */
  readonly lockBase: string;
  /** The doc's connections and what else closes with it (see closeDoc). */
  readonly connections: Connection[];
  readonly closers: (() => void)[];
  destroyed: boolean;
  /** As if this worker's renderer died (the devtools' crash). */
  crashed: boolean;
  /** Set once the worker serves (see serve): its lock, the tabs' first sync and the database read. */
  held?: Promise<unknown>;
  /** Why this worker serves no tab: its connector returned no connection (see serve). */
  refusal?: Error;
  /** The tabs' presence, which every store made from here on follows. */
  awareness?: Connection["awareness"];
  /** Connects the doc to other devices and holds this worker's lock: from here on it is the browser's replica. */
  serve(d: Y.Doc, config: BrowserConfig, tabs: Connection, loaded?: Promise<unknown>): void;
  /** The store of config's identity, made on `d` the first time. */
  store(d: Y.Doc, config: BrowserConfig, storeLocks?: LockManagerLike): SharedFetchStoreWithExtras;
  /** Some tab was here once and none is now: the worker retires rather than serve nobody. */
  deserted(): boolean;
  retire(): void;
};

export type Standby = {
  promote: () => void;
  warm: () => boolean;
  store: Promise<SharedFetchStoreWithExtras | undefined>;
  /** The standby's own lock, once held (held to the end, promoted or not: only death lets it go). */
  standing: Promise<string> | undefined;
};

/**
 * Started in advance for the next generation: a copy of the doc kept live by the current
 * worker over BroadcastChannel (no IndexedDB connection, no socket), and a place
 * in the queue for the current worker's lock `watch`. Its release (the worker died) promotes this one
 * at once: the doc is already there, so the tabs' re-sent requests find the dead worker's claims
 * without an IndexedDB read, and take them over by its released lock.
 */
export function prepareStandby(state: ReplicaState, d: Y.Doc, config: BrowserConfig, watch: string, replica?: string): Standby {
  const { options, locks, connections, closers } = state;
  let standing: Promise<string> | undefined;
  if (locks) {
    const own = STANDBY_LOCK_PREFIX + state.lockBase;
    standing = holdLock(locks, own).then((release) => {
      if (state.destroyed || state.crashed) release();
      else closers.push(release);
      return own;
    });
  }
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
    if (state.destroyed || state.held) return;
    // The live worker retired with every tab gone: nobody is left to serve (or to sign in for).
    if (state.deserted()) return state.retire();
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
      return state.serve(d, config, fresh);
    }
    // Persist from now on. A warm doc already holds what IndexedDB holds (the dead worker wrote
    // both), so nothing waits for the read: it merges in when it comes, and it starts once the
    // key locks queued in advance are granted (at most PERSIST_AFTER_MS later), so that the read
    // and the write of the whole doc that follows it do not hold their grants up on this thread.
    // A cold one reads it first.
    let loaded: Promise<unknown> | undefined;
    if (hasIndexedDB()) {
      const persist = () => {
        if (state.destroyed || state.crashed || state.refusal) return undefined;
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
    state.serve(d, config, tabs, loaded);
  };
  let made: (s: SharedFetchStoreWithExtras | undefined) => void = () => {};
  const standby: Standby = { promote, warm: () => warm, store: new Promise((resolve) => (made = resolve)), standing };
  // Granted asynchronously, after promote below has its stopWatch. Refused (a broken `locks`), this
  // standby still stands: the tabs hear that death by their own watch, and their hello promotes it
  // (open); a refusal is no death, and promoted on it this worker would serve beside a live one.
  const stopWatch = locks ? watchLock(locks, watch, promote) : undefined;
  // Without other devices the store can be made now (it writes nothing while idle): the
  // re-sent requests then find it ready, its lock held. With them it waits for promotion, so
  // that it gets the peers' presence, which connects only then (one socket per browser).
  const crossDevice = options.connectPeers !== undefined || config.peers !== undefined;
  // Asks sent in advance are served only by a store whose key locks are held back.
  if (!crossDevice) {
    state.awareness = tabs.awareness;
    void tabs.whenSynced.then(() => {
      if (state.destroyed || state.held) return made(undefined);
      const s = (idle = state.store(d, config, gate?.locks));
      stopJudging = judgeClaims(s, () => gate?.arm());
      made(gate ? s : undefined);
    });
  } else made(undefined);
  closers.push(() => (stopWatch?.(), stopJudging?.()));
  return standby;
}
