import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useSyncExternalStore } from "react";
import type { ClaimView, Snapshot, SnapshotError, SnapshotStatus } from "../core/types.ts";

export type SharedQueryResult<T> = {
  /** "pending" whenever work on the key is in flight in any replica, also while old data is shown. */
  status: SnapshotStatus;
  /** The latest recorded result: kept while a refetch runs or after it fails. */
  data: T | undefined;
  error: SnapshotError | undefined;
  /** Who is fetching, while someone is. */
  claim: ClaimView | undefined;
  isPending: boolean;
  /** True while work is in flight anywhere, or while this tab's query function runs. */
  isFetching: boolean;
  refetch: () => Promise<Snapshot<T>>;
};

/** How one kind of work plugs into TanStack Query and the store's subscription. */
export type StoreBinding<T> = {
  /** Stable id of the request (its key), or null when disabled. */
  id: string | null;
  /** Set when the input is invalid: surfaced as an error state, never thrown into React. */
  inputError?: string;
  ensure: (signal: AbortSignal) => Promise<Snapshot<T>>;
  snapshot: () => Snapshot<T>;
  subscribe: (listener: () => void) => () => void;
  refetch: () => Promise<Snapshot<T>>;
};

const IDLE: Snapshot<never> = Object.freeze({ status: "idle" }) as Snapshot<never>;
const noop = () => () => {};

/**
 * The shared part of useSharedFetch and useProgram: TanStack Query gives the in-tab cache and the
 * dedupe between components (one ensure per key per tab), the store gives the truth across replicas.
 */
export function useStoreQuery<T>(namespace: string, binding: StoreBinding<T>): SharedQueryResult<T> {
  const queryClient = useQueryClient();
  const { id } = binding;
  const queryKey = useMemo(() => ["shared-fetch", namespace, id] as const, [namespace, id]);
  const query = useQuery({
    queryKey,
    queryFn: ({ signal }) => binding.ensure(signal),
    enabled: id !== null && !binding.inputError,
    // Freshness is the store's business: other replicas' results arrive through the subscription.
    staleTime: Infinity,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    structuralSharing: false,
  });
  // Deliberately keyed on `id` alone: the binding's closures change identity on every render.
  const subscribe = useCallback((listener: () => void) => (id === null ? noop() : binding.subscribe(listener)), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const getSnapshot = useCallback(() => (id === null ? IDLE : binding.snapshot()), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const snap = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
  useEffect(() => {
    // Results written by other replicas reach this tab's query cache without a refetch.
    if (id !== null && snap.status !== "pending" && snap.status !== "idle" && queryClient.getQueryData(queryKey) !== snap) {
      queryClient.setQueryData(queryKey, snap);
    }
  }, [id, snap, queryClient, queryKey]);
  const refetch = useCallback(() => (id === null ? Promise.resolve(IDLE as Snapshot<T>) : binding.refetch()), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  if (binding.inputError) {
    const error = { message: binding.inputError };
    return { status: "error", data: undefined, error, claim: undefined, isPending: false, isFetching: false, refetch };
  }
  const data = snap.data ?? (query.data as Snapshot<T> | undefined)?.data;
  const pending = snap.status === "pending";
  return {
    status: snap.status,
    data,
    error: snap.error,
    claim: snap.claim,
    isPending: pending,
    isFetching: pending || query.isFetching,
    refetch,
  };
}
