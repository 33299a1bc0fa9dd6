import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useSyncExternalStore } from "react";
import { sameSnapshot } from "../core/snapshot.ts";
import type { ClaimView, Snapshot, SnapshotError, SnapshotStatus } from "../core/types.ts";

export type SharedQueryResult<T> = {
  /** "pending" whenever work on the key is in flight in any replica, also while old data is shown. */
  status: SnapshotStatus;
  /** The latest recorded result: kept while a refetch runs or after it fails. */
  data: T | undefined;
  error: SnapshotError | undefined;
  /** Who is fetching, while someone is. */
  claim: ClaimView | undefined;
  /** As in TanStack Query: no data yet and work on it under way. */
  isPending: boolean;
  /** Work on the key is in flight in some replica (also a refetch with old data shown). */
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
    // The store's subscription renders this component; the query only needs to wake it on error.
    notifyOnChangeProps: ["error"],
  });
  // Deliberately keyed on `id` alone: the binding's closures change identity on every render.
  const subscribe = useCallback((listener: () => void) => (id === null ? noop() : binding.subscribe(listener)), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const getSnapshot = useCallback(() => (id === null ? IDLE : binding.snapshot()), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const snap = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
  useEffect(() => {
    // Results written by other replicas reach this tab's query cache without a refetch.
    const cached = queryClient.getQueryData<Snapshot<T>>(queryKey);
    if (id !== null && snap.status !== "pending" && snap.status !== "idle" && !(cached && sameSnapshot(cached, snap))) {
      queryClient.setQueryData(queryKey, snap);
    }
  }, [id, snap, queryClient, queryKey]);
  const refetch = useCallback(() => (id === null ? Promise.resolve(IDLE as Snapshot<T>) : binding.refetch()), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  if (binding.inputError) {
    const error = { message: binding.inputError };
    return { status: "error", data: undefined, error, claim: undefined, isPending: false, isFetching: false, refetch };
  }
  // The query's own state is only a fallback where the store has nothing.
  const data = snap.data !== undefined ? snap.data : (query.data as Snapshot<T> | undefined)?.data;
  // Between the first render and the claim, the store knows nothing yet but this tab is about to
  // ask: that is pending, never "done, nothing here" (invariant 8).
  const status = snap.status === "idle" && id !== null && query.status !== "error" ? "pending" : snap.status;
  const pending = status === "pending";
  return {
    status,
    data,
    error: snap.error,
    claim: snap.claim,
    isPending: pending && data === undefined,
    isFetching: pending,
    refetch,
  };
}
