import { useSuspenseQuery } from "@tanstack/react-query";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { SharedRequest } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import { useSharedFetch, type UseSharedFetchOptions } from "./use-shared-fetch.ts";
import type { SharedQueryResult } from "./use-store-query.ts";

/**
 * useSharedFetch for React Suspense: suspends until a result or error is recorded by any replica
 * (an HTTP failure is a recorded error: it renders with `status: "error"` rather than throwing).
 * The query is the same TanStack cache entry useSharedFetch uses, so the two hooks share it.
 * Bad input throws to the nearest error boundary, as Suspense hooks do.
 */
export function useSharedFetchSuspense<T = unknown>(req: string | SharedRequest, opts?: Omit<UseSharedFetchOptions, "enabled">): SharedQueryResult<T> {
  const store = useSharedFetchStore();
  const request = typeof req === "string" ? { url: req } : req;
  const keyOf = (store as Partial<SharedFetchStoreExtras>).keyOf;
  const id = keyOf ? keyOf(request) : JSON.stringify(request);
  useSuspenseQuery({
    queryKey: ["shared-fetch", `fetch:${store.replicaId}`, id],
    queryFn: ({ signal }) => store.ensure(request, { signal, leaseMs: opts?.leaseMs }),
    staleTime: Infinity,
    retry: false,
  });
  return useSharedFetch<T>(request, opts);
}
