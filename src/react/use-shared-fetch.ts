import { useMemo } from "react";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import { messageOf } from "../core/fetcher.ts";
import type { SharedFetchStore, SharedRequest, Snapshot } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import { useStoreQuery, type SharedQueryResult } from "./use-store-query.ts";

export type UseSharedFetchOptions = {
  /** Lease bound for a claim this hook makes (default: the store's leaseMs). */
  leaseMs?: number;
  /** false disables the request like passing null. */
  enabled?: boolean;
};

function identify(store: SharedFetchStore, req: SharedRequest): string {
  const keyOf = (store as Partial<SharedFetchStoreExtras>).keyOf;
  return keyOf ? keyOf(req) : JSON.stringify([req.url, req.method, req.headers, req.body, req.parse]);
}

/**
 * One request shared by every tab and peer that shows it. `null` (or enabled: false) disables it.
 * Must be used inside <SharedFetchProvider> and a TanStack <QueryClientProvider>.
 */
export function useSharedFetch<T = unknown>(req: string | SharedRequest | null, opts?: UseSharedFetchOptions): SharedQueryResult<T> {
  const store = useSharedFetchStore();
  const request: SharedRequest | null = req === null || opts?.enabled === false ? null : typeof req === "string" ? { url: req } : req;
  let id: string | null = null;
  let inputError: string | undefined;
  if (request) {
    try {
      id = identify(store, request);
    } catch (error) {
      inputError = messageOf(error);
    }
  }
  // The request object may be a new literal on every render; its key is what identifies it.
  const stable = useMemo(() => request, [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const leaseMs = opts?.leaseMs;
  return useStoreQuery<T>(`fetch:${store.replicaId}`, {
    id,
    inputError,
    ensure: (signal) => store.ensure(stable!, { signal, leaseMs }) as Promise<Snapshot<T>>,
    snapshot: () => store.snapshot(stable!) as Snapshot<T>,
    subscribe: (listener) => store.subscribe(stable!, listener),
    refetch: () => store.refetch(stable!) as Promise<Snapshot<T>>,
  });
}
