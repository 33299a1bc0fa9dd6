"use client";
// A client module (React Server Components): hooks. sharedQueryOptions stays server-safe.
import { hashKey as hashQueryKey, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { normalizeRequest } from "../core/request.ts";
import type { SharedRequest } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import type { SharedFetchError } from "./shared-error.ts";
import { queryOptionsOf, type SharedQueryOptionsInput } from "./shared-query-options.ts";
import { fetchBinding, useSharedView, withViewProps, type SharedView } from "./use-shared-view.ts";
import { toRequest } from "./url.ts";
import { useObserverActive } from "./observer-active.ts";
import { useOwnNullKey } from "./null-key.ts";
import { useHydratable } from "./hydration.ts";

/** Every `useQuery` option (select, placeholderData, staleTime, refetchInterval, retry, …), plus `leaseMs` and your own `queryKey`. */
export type UseSharedFetchOptions<T = unknown, TData = T> = SharedQueryOptionsInput<T, TData>;

/** TanStack's `UseQueryResult` (`isSuccess` narrows `data`) plus `claim` and `isFetchingAnywhere`. */
export type SharedFetchResult<TData = unknown> = UseQueryResult<TData, SharedFetchError> & SharedView;

function safeRequest(req: string | SharedRequest | null): SharedRequest | null {
  try {
    const request = req === null ? null : toRequest(req);
    if (request) normalizeRequest(request);
    return request;
  } catch {
    return null; // the query reports it as its error
  }
}

/**
 * `useQuery(sharedQueryOptions(store, req, options))` plus the view across replicas: one request
 * shared by every tab and device that shows it. `null` (or `enabled: false`) disables it.
 * `refetch()` asks for a revision sent after the call (one in flight may have read the data before
 * a mutation): another replica's in flight is waited for, this replica's own aborted unless some
 * other caller here still waits for it.
 * Must be used inside <SharedFetchProvider> and a TanStack <QueryClientProvider>.
 */
export function useSharedFetch<T = unknown, TData = T>(
  req: string | SharedRequest | null,
  options?: UseSharedFetchOptions<T, TData>,
): SharedFetchResult<TData> {
  const store = useSharedFetchStore();
  const own = useOwnNullKey(req === null, options);
  const opts = useHydratable(queryOptionsOf<T, TData>("useSharedFetch", store, req, own), options);
  const query = useQuery(withViewProps(opts));
  const request = useObserverActive(query, opts) ? safeRequest(req) : null;
  return useSharedView(query, opts, fetchBinding(store, hashQueryKey(opts.queryKey), request));
}
