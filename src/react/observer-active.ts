"use client";
// A client module (React Server Components): hooks.
import { useIsRestoring, useQueryClient, type QueryKey } from "@tanstack/react-query";

/** What the check reads of TanStack's result and of the options it was made with. */
type Observed = { isEnabled?: boolean };
type ObservedOptions = { queryKey: QueryKey; subscribed?: boolean };

/**
 * Whether TanStack's observer of these options runs its query by itself, as useQuery decides:
 * enabled (the option, the client's defaults for the key, or its function of the query), subscribed,
 * and not restoring a persisted cache. Only then may a hook's view subscribe to the store: a store
 * subscriber finishes work another replica abandoned, which a disabled query must never do.
 */
export function useObserverActive(query: Observed, options: ObservedOptions): boolean {
  const client = useQueryClient();
  const restoring = useIsRestoring();
  if (restoring || options.subscribed === false) return false;
  // Recent TanStack Query results say it (the observer's defaulted options, resolved); older 5.x do not.
  if (typeof query.isEnabled === "boolean") return query.isEnabled;
  const { enabled } = client.defaultQueryOptions(options as Parameters<typeof client.defaultQueryOptions>[0]);
  if (typeof enabled !== "function") return enabled !== false;
  const cached = client.getQueryCache().find({ queryKey: options.queryKey, exact: true });
  return cached === undefined || enabled(cached as Parameters<typeof enabled>[0]) !== false;
}
