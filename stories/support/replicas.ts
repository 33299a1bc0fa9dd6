import { QueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import * as Y from "yjs";
import { createSharedFetchStore, type CreateStoreOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import type { FakeLocks } from "../../sim/fake-locks.ts";
import type { Host } from "../../sim/host.ts";
import { Network } from "../../sim/network.ts";
import { Narration, narrateHost } from "./narration.ts";
import { scenarioLocks } from "./page-locks.ts";
import { createWorldTimeline } from "./world-timeline.ts";

export type Replica = {
  /** Display name, e.g. "Replica A". */
  name: string;
  replicaId: string;
  doc: Y.Doc;
  store: SharedFetchStoreWithExtras;
  /** Each replica has its own QueryClient, as separate tabs or devices would. */
  queryClient: QueryClient;
};

export type WorldState = { replicas: readonly Replica[]; crashed: ReadonlySet<string>; closed: ReadonlySet<string> };

export type Replicas = {
  /** The replicas as first created (a reload adds one to `getSnapshot().replicas`). */
  replicas: Replica[];
  net: Network;
  host: Host;
  narration: Narration;
  /** A crash, not an orderly stop: no destroy(), no release; its doc stops syncing, its locks are freed. */
  crash(replica: Replica): void;
  /** An orderly close (the tab is closed): `store.destroy()` aborts its work and releases its own claims. */
  close(replica: Replica): void;
  /** A new replica (new id) on a doc holding what the crashed one's persistence held. */
  reload(replica: Replica, name: string): Replica;
  getSnapshot(): WorldState;
  subscribe(listener: () => void): () => void;
  destroy(): void;
};

export type CreateReplicasOptions = {
  /** One replica per name: "Replica A" gets the replica id "replica-a" and sends as "A". */
  names: string[];
  host: Host;
  leaseMs?: number;
  settleMs?: number;
  /**
   * Each replica plays a browser of its own (its own browser id). In one page every store shares
   * the page's Web Locks, so a "crashed" store's lock would stay held and its claim alive; as
   * separate browsers, a crash is found by the lease, as across devices.
   */
  separateBrowsers?: boolean;
  /** Tabs of one browser: a shared fake lock manager whose `crash(tag)` frees a tab's locks. */
  locks?: FakeLocks;
  /** Per-replica store options (by index). */
  storeOptions?: (index: number) => Partial<CreateStoreOptions>;
  /**
   * Each replica's `fetch`, by its short name ("A"). Default: the host's in-page `fetchAs`; a story
   * on Mock Service Worker passes the browser's fetch (support/mocked-host.ts).
   */
  fetchFor?: (from: string) => typeof fetch;
  /**
   * Connects each replica's doc as a real tab would (e.g. `connectTabs`, on the page's own
   * BroadcastChannel): its store gets the connection's awareness and, through the doc, its flush.
   */
  connect?: (doc: Y.Doc, index: number) => { awareness: NonNullable<CreateStoreOptions["awareness"]>; destroy(): void };
  /** False: the docs sync only through `connect` (devices on a sync server), not the in-page network. */
  linked?: boolean;
};

export const idOf = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-");
/** "Replica A" → "A": what the narration and the host call it. */
export const shortOf = (name: string) => name.trim().split(/\s+/).at(-1) ?? name;

/** One doc, store and QueryClient per name, on one network, narrated by the devtools timeline (world-timeline.ts). */
export function createReplicas(options: CreateReplicasOptions): Replicas {
  const net = new Network(0);
  const narration = new Narration();
  const timeline = createWorldTimeline(narration);
  const offs = [narrateHost(narration, options.host), () => timeline.destroy()];
  const connections: { destroy(): void }[] = [];
  // This world's own lock names: another scenario on the page (or in another tab) has a "replica-a" too.
  const pageLocks = options.locks ? undefined : scenarioLocks();
  const listeners = new Set<() => void>();
  let state: WorldState = { replicas: [], crashed: new Set(), closed: new Set() };
  const publish = (next: WorldState) => {
    state = next;
    for (const l of [...listeners]) l();
  };
  const make = (name: string, index: number, from?: Y.Doc): Replica => {
    const doc = new Y.Doc();
    if (from) Y.applyUpdate(doc, Y.encodeStateAsUpdate(from));
    if (options.linked !== false) net.add(doc);
    const connection = options.connect?.(doc, index);
    if (connection) connections.push(connection);
    const replicaId = idOf(name);
    const store = createSharedFetchStore({
      doc,
      replicaId,
      fetch: (options.fetchFor ?? ((from: string) => options.host.fetchAs(from)))(shortOf(name)),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
      ...(options.separateBrowsers ? { browserId: `${replicaId}-browser` } : {}),
      ...(options.locks ? { locks: options.locks.forTab(replicaId), browserId: "one-browser" } : pageLocks ? { locks: pageLocks } : {}),
      ...(connection ? { awareness: connection.awareness } : {}),
      ...options.storeOptions?.(index),
    });
    timeline.add(shortOf(name), store);
    const queryClient = new QueryClient({
      // The store decides when to fetch; keep TanStack from retrying or refetching on its own.
      defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
    });
    return { name, replicaId, doc, store, queryClient };
  };
  const replicas = options.names.map((name, i) => make(name, i));
  state = { replicas, crashed: new Set(), closed: new Set() };
  const all = () => state.replicas;
  return {
    replicas,
    net,
    host: options.host,
    narration,
    crash(replica) {
      net.remove(replica.doc);
      options.locks?.crash(replica.replicaId);
      timeline.silence(replica.replicaId);
      narration.add({ text: `${shortOf(replica.name)} crashed`, replica: shortOf(replica.name) });
      publish({ ...state, crashed: new Set([...state.crashed, replica.replicaId]) });
    },
    close(replica) {
      narration.add({ text: `${shortOf(replica.name)} closed its tab (an orderly stop)`, replica: shortOf(replica.name) });
      timeline.silence(replica.replicaId);
      replica.store.destroy();
      publish({ ...state, closed: new Set([...state.closed, replica.replicaId]) });
    },
    reload(replica, name) {
      const next = make(name, all().length, replica.doc);
      narration.add({
        // A reload is the same browser: with its Web Locks the crashed page's released lock would tell at once.
        text: `${shortOf(name)} opened (a reload of ${shortOf(replica.name)}: a new replica, same persisted doc${options.separateBrowsers ? `, in a browser without Web Locks, e.g. an http:// page off localhost: only ${shortOf(replica.name)}'s lease tells it is gone` : ""})`,
        replica: shortOf(name),
      });
      publish({ ...state, replicas: [...state.replicas, next] });
      return next;
    },
    getSnapshot: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    destroy() {
      for (const off of offs) off();
      for (const r of all()) {
        r.store.destroy();
        r.queryClient.clear();
      }
      for (const c of connections) c.destroy();
      net.destroy();
      options.host.destroy();
      for (const r of all()) r.doc.destroy();
    },
  };
}

const pendingDestroy = new WeakMap<object, ReturnType<typeof setTimeout>>();

/**
 * Creates a disposable once per mount and destroys it on unmount. The destroy is deferred by a
 * task so that React StrictMode's simulated unmount/remount keeps the same instance alive.
 * Give the component a `key` derived from the inputs of `create` to rebuild it when they change.
 */
export function useDisposable<T extends { destroy(): void }>(create: () => T): T {
  const [value] = useState(create);
  useEffect(() => {
    const pending = pendingDestroy.get(value);
    if (pending !== undefined) {
      clearTimeout(pending);
      pendingDestroy.delete(value);
    }
    return () => {
      pendingDestroy.set(
        value,
        setTimeout(() => {
          pendingDestroy.delete(value);
          value.destroy();
        }, 0),
      );
    };
  }, [value]);
  return value;
}
