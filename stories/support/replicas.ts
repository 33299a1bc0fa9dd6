import { QueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStore } from "../../src/index.ts";
import { createLinkedDocs, type LinkedDocs, type LinkOptions } from "./linked-docs.ts";

export type Replica = {
  /** Display name, e.g. "Replica A". */
  name: string;
  replicaId: string;
  doc: Y.Doc;
  store: SharedFetchStore;
  /** Each replica has its own QueryClient, as separate tabs or devices would. */
  queryClient: QueryClient;
};

export type Replicas = {
  replicas: Replica[];
  linked: LinkedDocs;
  /** Destroy every store, clear every QueryClient, cut every link, destroy every doc. */
  destroy(): void;
};

export type CreateReplicasOptions = LinkOptions & {
  /** One replica per name: "Replica A" gets the replica id "replica-a". */
  names: string[];
  /** The fetch every store uses (a simulated host's `fetch`). */
  fetch: typeof fetch;
  leaseMs?: number;
  identity?: string;
  /**
   * Each replica plays a browser of its own (its own browser id). In one page every store shares
   * the page's Web Locks, so a "crashed" store's lock would stay held and its claim alive; as
   * separate browsers, a crash is found by the lease, as across devices.
   */
  separateBrowsers?: boolean;
};

const idOf = (name: string) => name.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** One linked Y.Doc, one store and one QueryClient per name. */
export function createReplicas(options: CreateReplicasOptions): Replicas {
  const linked = createLinkedDocs(options.names.length, options);
  const replicas = options.names.map((name, i): Replica => {
    const doc = linked.docs[i]!;
    const replicaId = idOf(name);
    const store = createSharedFetchStore({
      doc,
      replicaId,
      fetch: options.fetch,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
      ...(options.separateBrowsers ? { browserId: `${replicaId}-browser` } : {}),
    });
    const queryClient = new QueryClient({
      // The store decides when to fetch; keep TanStack from retrying or refetching on its own.
      defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
    });
    return { name, replicaId, doc, store, queryClient };
  });
  return {
    replicas,
    linked,
    destroy() {
      for (const r of replicas) {
        r.store.destroy();
        r.queryClient.clear();
      }
      linked.destroy();
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
