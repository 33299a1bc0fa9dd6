/**
 * What each fetch of a shared query is recorded as, and how: the `behavior` that records it as it
 * starts (why it runs, its options as TanStack merged them), the observers that mounted since, the
 * query a query function runs for. demand.ts reads the record into what the run asks of the store.
 */
import type { Query, QueryFunctionContext, UseQueryOptions } from "@tanstack/react-query";
import { shownValue } from "../core/errors.ts";
import type { SharedFetchError } from "./shared-error.ts";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;
type Behavior<T = unknown, E = Error> = NonNullable<UseQueryOptions<T, E, T>["behavior"]>;
type FetchOptions = Parameters<Behavior["onFetch"]>[0]["fetchOptions"];
type RetryValue = UseQueryOptions<unknown, SharedFetchError>["retry"];
type RetryDelayValue = UseQueryOptions<unknown, SharedFetchError>["retryDelay"];
type NetworkMode = UseQueryOptions["networkMode"];

/**
 * What TanStack tells a query's `behavior` right before the query function runs, and never the
 * query function itself. `fetchOptions` say why it runs: `cancelRefetch: true` is an explicit
 * refetch (an observer's refetch(), refetchQueries, invalidateQueries, resetQueries), `false` a
 * focus or reconnect, none a mount, poll or prefetch. `retry`, `retryDelay`, `networkMode` and
 * `staleTime` are the fetch's options as TanStack merged them (yours spread over
 * sharedQueryOptions', the key's defaults, the client's; `retry: false` where fetchQuery,
 * prefetchQuery, ensureQueryData or query() found none): the retries run in the claim, so
 * TanStack's retryer for this fetch gets none. `observer`: an observer's fetch (a mount, focus,
 * reconnect or poll of useQuery and every hook built on it, whose options React marks with
 * `_optimisticResults`), not one of the client's methods, which decide by their own staleTime.
 */
export type FetchRecord = {
  fetchOptions: FetchOptions;
  retry: RetryValue;
  retryDelay: RetryDelayValue;
  networkMode: NetworkMode;
  staleTime: unknown;
  observer: boolean;
  /**
   * A mount whose observer says `refetchOnMount: "always"`: one whose result React already shows
   * fetching (its optimistic result) while the query is idle (a poll tick or another observer's
   * mount finds every result in step with the query), as TanStack calls `behavior` before its dispatch.
   */
  mountAlways: boolean;
  /** The error the query showed as the fetch began (one without data reads pending once it starts). */
  error?: unknown;
  /** Its observers' options as the fetch began (demandOf). */
  observed?: AnyQuery["observers"][number]["options"][];
};

/** Its observers' options now: a fetch keeps them as it begins (FetchRecord.observed). */
export const optionsOf = (query: AnyQuery) => query.observers.map((observer) => observer.options);

const fetches = new WeakMap<object, FetchRecord>();

/**
 * Queries whose fetch, about to start, is the Refetch button of TanStack's Query devtools: a bare
 * `query.fetch()`, which tells nothing of why, told by the event the devtools dispatch on `window`
 * right before it. An explicit refetch, as an observer's `refetch()`: a fresh shared query sent
 * nothing on it, where a plain one always refetches.
 */
let devtoolsRefetch: Set<unknown> | undefined;

/** Listens, once per page, for the Query devtools' events (see devtoolsRefetch). */
export function listenToQueryDevtools(): void {
  if (devtoolsRefetch || typeof addEventListener != "function") return;
  const asked = (devtoolsRefetch = new Set());
  addEventListener("@tanstack/query-devtools-event", (event) => {
    const { type, queryHash } = ((event as CustomEvent).detail ?? {}) as { type?: unknown; queryHash?: unknown };
    if (type != "REFETCH") return;
    asked.add(queryHash);
    // Its fetch starts at once, or not at all (one was running).
    queueMicrotask(() => asked.delete(queryHash));
  });
}
/** The query each fetch runs for, by its key: the very array TanStack then hands its query function. */
const fetchedBy = new WeakMap<object, AnyQuery>();
const mounted = new WeakSet<object>();
/** The outcome count of a query when its last fetch started as an "always" mount (mountsAlways). */
const alwaysSince = new WeakMap<object, number>();

/** The `behavior` shared queries run: it records each fetch (see FetchRecord), then runs the caller's own, if any. */
export function recordingBehavior<T, E>(own: Behavior<T, E> | undefined): Behavior<T, E> {
  return {
    onFetch: (context, query) => {
      const { retry, retryDelay, networkMode } = context.options;
      // QueryOptions' type has no staleTime, though the merged options a fetch runs with carry it.
      const { staleTime, _optimisticResults } = context.options as { staleTime?: unknown; _optimisticResults?: unknown };
      noteFetching(query);
      fetches.set(query, {
        fetchOptions: context.fetchOptions ?? (devtoolsRefetch?.delete(query.queryHash) ? { cancelRefetch: true } : undefined),
        retry: retry as RetryValue,
        retryDelay: retryDelay as RetryDelayValue,
        networkMode,
        staleTime,
        observer: _optimisticResults !== undefined,
        mountAlways: mountsAlways(query, context.fetchOptions),
        error: query.state.error,
        observed: optionsOf(query as AnyQuery),
      });
      // This fetch's retryer only (the query's options stay as given): a retryDelay function
      // would otherwise still be called on each failure, with retry false.
      context.options = { ...context.options, retry: false, retryDelay: 0 };
      own?.onFetch(context, query);
    },
  };
}

/**
 * When the last error was recorded in each query invalidated while that error had marked it so:
 * TanStack's `invalidate()` then dispatches nothing, and the query's state cannot tell the app's
 * invalidation from the error's mark. Not the error count, which resetQueries starts again from 0.
 */
export const invalidatedAfter = new WeakMap<object, number>();

/** Remembers the query a fetch starts for, by its key array, for queryOf; watches its invalidations (invalidatedAfter). */
export function noteFetching(query: AnyQuery): void {
  fetchedBy.set(query.queryKey, query);
  if (invalidatedAfter.has(query)) return;
  invalidatedAfter.set(query, -1);
  const invalidate = query.invalidate;
  query.invalidate = function () {
    if (this.state.isInvalidated) invalidatedAfter.set(this, this.state.errorUpdatedAt);
    invalidate.call(this);
  };
}

/**
 * The cached query whose key a query function was given. TanStack's `find` hashes every query's
 * key to compare it, and a dashboard that refetches all of its N queries would pay N² of those;
 * the behavior saw the query itself (an infinite query's watched `fetch`, which TanStack's page
 * behavior leaves us). Elsewhere (a `behavior` of yours, another client's query of the same key
 * array fetched since, a feed's first fetch before it was watched): TanStack's find.
 */
export function queryOf(ctx: Pick<QueryFunctionContext, "client" | "queryKey">): AnyQuery | undefined {
  const cache = ctx.client.getQueryCache();
  const seen = fetchedBy.get(ctx.queryKey);
  return seen && cache.get(seen.queryHash) === seen ? seen : (cache.find({ queryKey: ctx.queryKey, exact: true }) as AnyQuery | undefined);
}

/**
 * Whether the fetch about to start is a mount whose observer says `refetchOnMount: "always"` (see
 * FetchRecord), read before TanStack dispatches it. Every observer met here has mounted since: its
 * key changing later (it pages on) is no mount, and TanStack fetches then only what is stale.
 */
export function mountsAlways(query: AnyQuery, fetchOptions: FetchOptions): boolean {
  const { fetchStatus, dataUpdateCount, errorUpdateCount } = query.state;
  const settled = dataUpdateCount + errorUpdateCount;
  const always =
    !fetchOptions &&
    fetchStatus === "idle" &&
    // StrictMode's unmount cancels that mount's fetch with no outcome (its signal read), and its
    // second subscription starts it again: still that mount's, though its observer was met.
    (alwaysSince.get(query) === settled ||
      query.observers.some(
        (o) => !mounted.has(o) && o.getCurrentResult().fetchStatus !== "idle" && resolve(o.options.refetchOnMount, query) === "always",
      ));
  if (always) alwaysSince.set(query, settled);
  else alwaysSince.delete(query);
  query.observers.forEach(mounted.add, mounted);
  return always;
}

/**
 * An observer subscribing (the query cache's `observerAdded`) while disabled has mounted without a
 * fetch: enabled later, TanStack fetches only what is stale (shouldFetchOptionally), whatever
 * refetchOnMount says, so that fetch is no mount. An enabled one with `staleTime: "static"` that
 * finds its query reset to the store's data since its last fetch (push.ts, noteAction: not static
 * till then) refetches it, as a plain query's mount fetches one reset to no data; TanStack's mount
 * passes over a static query with data, which the next invalidateQueries then refetched instead.
 */
export function noteSubscribed(
  observer: { options: { enabled?: unknown; staleTime?: unknown }; refetch(): Promise<unknown> },
  query: AnyQuery,
): void {
  if (resolve(observer.options.enabled, query) === false) mounted.add(observer);
  else if (Object.hasOwn(query, "isStatic") && resolve(observer.options.staleTime, query) === "static") void observer.refetch();
}

/**
 * `enabled` as sharedQueryOptions gives it (a null request's `false`, or yours): a function that
 * notes, when it says false, the observers of the query that hold it (TanStack asks it as an
 * observer subscribes) as mounted (noteSubscribed), where nothing watches the client's cache yet.
 */
export function notingDisabled(enabled: unknown): { enabled?: (query: object) => boolean } {
  if (enabled === undefined) return {};
  // TanStack checks a value, never a function's answer: wrapped, `user && user.id` with no user
  // (null, "", 0) would read as "not false" and send the request TanStack refused to.
  if (typeof enabled != "boolean" && typeof enabled != "function")
    throw new TypeError(`shared-fetch: \`enabled\` must be a boolean or a function of the query, got ${shownValue(enabled)}`);
  const noting = (q: object): boolean => {
    const query = q as AnyQuery;
    const on = resolve(enabled as boolean, query);
    if (on === false) for (const o of query.observers) if (o.options.enabled === noting) mounted.add(o);
    return on;
  };
  return { enabled: noting };
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

/** An option as TanStack reads it: its value, or its function's answer for the query. */
export function resolve<V>(value: V | ((query: AnyQuery) => V), query: AnyQuery): V {
  return typeof value === "function" ? (value as (query: AnyQuery) => V)(query) : value;
}
