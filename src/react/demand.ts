import { isServer, type Query, type QueryClient, type QueryKey, type UseQueryOptions } from "@tanstack/react-query";
import { pollWindow } from "../core/freshness.ts";
import { tanstackRetry, type RetryPolicy } from "../core/retry.ts";
import { SharedFetchError } from "./shared-error.ts";

/** fetchMeta that the hooks' `refetch()` passes: it asks for a newer revision, like store.refetch. */
export const REFETCH_META = { sharedFetch: "refetch" } as const;

/** What one run of a shared query function asks the store for. */
export type Demand = { mode: "refetch" } | { mode: "ensure"; maxAgeMs: number };

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;
type Behavior<T = unknown, E = Error> = NonNullable<UseQueryOptions<T, E, T>["behavior"]>;
type FetchOptions = Parameters<Behavior["onFetch"]>[0]["fetchOptions"];
type RetryValue = UseQueryOptions<unknown, SharedFetchError>["retry"];
type RetryDelayValue = UseQueryOptions<unknown, SharedFetchError>["retryDelay"];

/**
 * What TanStack tells a query's `behavior` right before the query function runs, and never the
 * query function itself. `fetchOptions` say why it runs: `cancelRefetch: true` is an explicit
 * refetch (an observer's refetch(), refetchQueries, invalidateQueries, resetQueries), `false` a
 * focus or reconnect, none a mount, poll or prefetch. `retry` / `retryDelay` are the query's
 * options as TanStack merged them (yours spread over sharedQueryOptions', the key's defaults, the
 * client's): the retries run in the claim, so TanStack's retryer for this fetch gets none.
 */
export type FetchRecord = { fetchOptions: FetchOptions; retry: RetryValue; retryDelay: RetryDelayValue };

const fetches = new WeakMap<object, FetchRecord>();

/** The `behavior` shared queries run: it records each fetch (see FetchRecord), then runs the caller's own, if any. */
export function recordingBehavior<T, E>(own: Behavior<T, E> | undefined): Behavior<T, E> {
  return {
    onFetch: (context, query) => {
      const { retry, retryDelay } = context.options;
      fetches.set(query, { fetchOptions: context.fetchOptions, retry: retry as RetryValue, retryDelay: retryDelay as RetryDelayValue });
      // This fetch's retryer only (the query's options stay as given): a retryDelay function
      // would otherwise still be called on each failure, with retry false.
      context.options = { ...context.options, retry: false, retryDelay: 0 };
      own?.onFetch(context, query);
    },
  };
}

/**
 * The record of the fetch that runs the query function now, taken once per run: a later fetch
 * that bypasses the behavior (its options replaced by yours) is not mistaken for this one.
 */
export function takeFetch(query: object | undefined): FetchRecord | undefined {
  if (!query) return undefined;
  const record = fetches.get(query);
  fetches.delete(query);
  return record;
}

function resolve<V>(value: V | ((query: AnyQuery) => V), query: AnyQuery): V {
  return typeof value === "function" ? (value as (query: AnyQuery) => V)(query) : value;
}

function staleMs(value: unknown, query: AnyQuery): number | undefined {
  const v = resolve(value as number | "static" | undefined, query);
  return v === "static" ? Infinity : typeof v === "number" && v >= 0 ? v : undefined;
}

/**
 * Why TanStack ran the query function, read from the query itself: an explicit refetch (`refetch()`
 * from any observer's result — useQuery, useQueries, useSuspenseQuery or the hooks —,
 * `refetchQueries`, `invalidateQueries`: TanStack always fetches then) asks for a newer revision;
 * so does an invalidated query, and an errored, unpolled one (TanStack's error state is always
 * stale), and a mount, focus or reconnect whose option says `"always"`; anything else (mount,
 * focus, reconnect, a poll tick, prefetch) is a freshness demand that
 * any replica's recent enough outcome meets. The window is the shortest poll interval among the
 * query's observers (less a little, see pollWindow), else the shortest staleTime among them
 * (TanStack ran us because its own staleTime said stale). `fetch`: this run's record (takeFetch).
 */
export function demandOf(query: AnyQuery | undefined, fetch: FetchRecord | undefined): Demand {
  if (!query) return { mode: "ensure", maxAgeMs: 0 };
  const { state } = query;
  if ((state.fetchMeta as { sharedFetch?: unknown } | null)?.sharedFetch === REFETCH_META.sharedFetch) return { mode: "refetch" };
  if (fetch?.fetchOptions?.cancelRefetch === true) return { mode: "refetch" };
  if (state.isInvalidated && state.status !== "error") return { mode: "refetch" };
  let interval = Infinity;
  let stale = Infinity;
  let any = false;
  let mountAlways = false;
  let focusOrReconnectAlways = false;
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
    mountAlways ||= resolve(options.refetchOnMount, query) === "always";
    focusOrReconnectAlways ||=
      resolve(options.refetchOnWindowFocus, query) === "always" || resolve(options.refetchOnReconnect, query) === "always";
  }
  if (interval !== Infinity) return { mode: "ensure", maxAgeMs: pollWindow(interval) };
  // `"always"` fetches whatever the data's age, as an explicit refetch does: a newer revision (K
  // tabs mounting at once join one). A mount reaches us with no fetch options, a focus or
  // reconnect with `cancelRefetch: false`.
  if (fetch && (fetch.fetchOptions?.cancelRefetch === false ? focusOrReconnectAlways : mountAlways)) return { mode: "refetch" };
  if (state.status === "error") return { mode: "refetch" };
  if (!any) stale = staleMs((query.options as { staleTime?: unknown }).staleTime, query) ?? 0;
  return { mode: "ensure", maxAgeMs: stale };
}

/**
 * TanStack's `retry` / `retryDelay` as TanStack defaults them for this query, run by the store
 * inside its claim: a `retry` spread over sharedQueryOptions' own (`{ ...items, retry: 5 }`, seen in
 * this run's record), else the one given to sharedQueryOptions, else the client's defaults for its
 * key (`setQueryDefaults`), else the client's defaults, else TanStack's (3 in a browser, 0 on a
 * server). `retryDelay`: the one given to sharedQueryOptions, else the query's as TanStack merged
 * it (spread over, the key's defaults, the client's), else TanStack's exponential delay.
 */
export function retryPolicy(
  client: QueryClient,
  queryKey: QueryKey,
  retry: RetryValue,
  retryDelay: RetryDelayValue,
  fetch?: FetchRecord,
): RetryPolicy {
  const global = client.getDefaultOptions().queries;
  const forKey = client.getQueryDefaults(queryKey);
  // sharedQueryOptions passes TanStack `retry: false`: anything else there was spread over it.
  const spread = fetch?.retry === false ? undefined : fetch?.retry;
  const r = spread ?? retry ?? forKey.retry ?? global?.retry ?? (isServer ? 0 : 3);
  // The merged retryDelay already holds the defaults (sharedQueryOptions passes none of its own).
  const d = retryDelay ?? fetch?.retryDelay ?? forKey.retryDelay ?? global?.retryDelay;
  return tanstackRetry<SharedFetchError>(r, d, (error) => new SharedFetchError(error));
}
