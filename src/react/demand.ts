import { isServer, type Query, type QueryClient, type UseQueryOptions } from "@tanstack/react-query";
import { pollWindow } from "../core/freshness.ts";
import type { OutcomeError } from "../core/fetcher.ts";
import { exponentialDelay, type RetryData, type RetryPolicy } from "../core/retry.ts";
import { SharedFetchError } from "./shared-error.ts";

/** fetchMeta that the hooks' `refetch()` passes: it asks for a newer revision, like store.refetch. */
export const REFETCH_META = { sharedFetch: "refetch" } as const;

/** What one run of a shared query function asks the store for. */
export type Demand = { mode: "refetch" } | { mode: "ensure"; maxAgeMs: number };

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

function resolve<V>(value: V | ((query: AnyQuery) => V), query: AnyQuery): V {
  return typeof value === "function" ? (value as (query: AnyQuery) => V)(query) : value;
}

function staleMs(value: unknown, query: AnyQuery): number | undefined {
  const v = resolve(value as number | "static" | undefined, query);
  return v === "static" ? Infinity : typeof v === "number" && v >= 0 ? v : undefined;
}

/**
 * Why TanStack ran the query function, read from the query itself: a `refetch()` from the hooks or
 * an `invalidateQueries` asks for a newer revision; an errored, unpolled query tries again (as
 * TanStack's error state is always stale); anything else (mount, focus, reconnect, a poll tick,
 * prefetch) is a freshness demand that any replica's recent enough outcome meets. The window is the
 * shortest poll interval among the query's observers (less a little, see pollWindow), else the
 * shortest staleTime among them (TanStack ran us because its own staleTime said stale).
 */
export function demandOf(query: AnyQuery | undefined): Demand {
  if (!query) return { mode: "ensure", maxAgeMs: 0 };
  const { state } = query;
  if ((state.fetchMeta as { sharedFetch?: unknown } | null)?.sharedFetch === REFETCH_META.sharedFetch) return { mode: "refetch" };
  if (state.isInvalidated && state.status !== "error") return { mode: "refetch" };
  let interval = Infinity;
  let stale = Infinity;
  let any = false;
  for (const observer of query.observers) {
    const options = observer.options;
    if (resolve(options.enabled ?? true, query) === false) continue;
    const every = resolve(options.refetchInterval as number | false | undefined, query);
    if (typeof every === "number" && every > 0) interval = Math.min(interval, every);
    const ms = staleMs(options.staleTime, query);
    if (ms !== undefined) {
      stale = Math.min(stale, ms);
      any = true;
    }
  }
  if (interval !== Infinity) return { mode: "ensure", maxAgeMs: pollWindow(interval) };
  if (state.status === "error") return { mode: "refetch" };
  if (!any) stale = staleMs((query.options as { staleTime?: unknown }).staleTime, query) ?? 0;
  return { mode: "ensure", maxAgeMs: stale };
}

type RetryValue = UseQueryOptions<unknown, SharedFetchError>["retry"];
type RetryDelayValue = UseQueryOptions<unknown, SharedFetchError>["retryDelay"];

/**
 * TanStack's `retry` / `retryDelay` (the options given, else the client's defaults, else
 * TanStack's: 3 in a browser, 0 on a server), run by the store inside its claim.
 */
export function retryPolicy(client: QueryClient, retry: RetryValue, retryDelay: RetryDelayValue): RetryPolicy {
  const defaults = client.getDefaultOptions().queries;
  const r = (retry ?? defaults?.retry ?? (isServer ? 0 : 3)) as RetryValue;
  const d = (retryDelay ?? defaults?.retryDelay ?? exponentialDelay) as NonNullable<RetryDelayValue>;
  const asError = (error: OutcomeError) => new SharedFetchError(error);
  // Booleans and numbers as data too: a SharedWorker replica runs them without asking the tab.
  const data: RetryData = {
    ...(typeof r === "boolean" || typeof r === "number" ? { retry: r } : {}),
    ...(d === exponentialDelay ? { delayMs: "exponential" as const } : typeof d === "number" ? { delayMs: d } : {}),
  };
  return {
    retry: (count, error) => r === true || (typeof r === "number" && count < r) || (typeof r === "function" && r(count, asError(error))),
    delayMs: (count, error) => (typeof d === "function" ? d(count, asError(error)) : d),
    data,
  };
}
