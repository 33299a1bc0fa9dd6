"use client";
// A client module (React Server Components): hooks.
import { hashKey as hashQueryKey, useSuspenseQuery, type UseSuspenseQueryResult } from "@tanstack/react-query";
import { normalizeRequest } from "../core/request.ts";
import type { SharedRequest } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import type { SharedFetchError } from "./shared-error.ts";
import { queryOptionsOf } from "./shared-query-options.ts";
import type { UseSharedFetchOptions } from "./use-shared-fetch.ts";
import { fetchBinding, useSharedView, withViewProps, type SharedView } from "./use-shared-view.ts";
import { toRequest } from "./url.ts";
import { useObserverActive } from "./observer-active.ts";
import { useHydratable } from "./hydration.ts";

/** Options of useSharedFetchSuspense: those useSuspenseQuery takes. */
export type UseSharedFetchSuspenseOptions<T = unknown, TData = T> = Omit<
  UseSharedFetchOptions<T, TData>,
  "enabled" | "placeholderData" | "throwOnError"
>;

/**
 * `useSuspenseQuery(sharedQueryOptions(…))` plus the view across replicas: suspends until any
 * replica records an outcome; an error with no data throws to the nearest error boundary (as
 * useSuspenseQuery does). Same cache entry as useSharedFetch for the same request.
 */
export function useSharedFetchSuspense<T = unknown, TData = T>(
  req: string | SharedRequest,
  options?: UseSharedFetchSuspenseOptions<T, TData>,
): UseSuspenseQueryResult<TData, SharedFetchError> & SharedView {
  const store = useSharedFetchStore();
  const opts = useHydratable(queryOptionsOf<T, TData>("useSharedFetchSuspense", store, req, options), options);
  const query = useSuspenseQuery(withViewProps(opts));
  const active = useObserverActive(query, opts);
  let request: SharedRequest | null = null;
  try {
    if (active) request = toRequest(req);
    if (request) normalizeRequest(request);
  } catch {
    request = null; // useSuspenseQuery has thrown the input error already
  }
  return useSharedView(query, opts, fetchBinding(store, hashQueryKey(opts.queryKey), request));
}
