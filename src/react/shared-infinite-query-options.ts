import {
  infiniteQueryOptions,
  type DataTag,
  type InfiniteData,
  type OmitKeyof,
  type Query,
  type QueryFunction,
  type QueryFunctionContext,
  type QueryKey,
  type UseInfiniteQueryOptions,
} from "@tanstack/react-query";
import { shownValue } from "../core/errors.ts";
import { messageOf } from "../core/fetcher.ts";
import { hashKey } from "../core/key.ts";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { SharedFetchStore, SharedRequest } from "../core/types.ts";
import { demandOf, pastRecordedError, pastShownError, retryPolicy, type Demand, type Given } from "./demand.ts";
import { mountsAlways, noteFetching, notingDisabled, optionsOf, queryOf, type FetchRecord } from "./fetch-record.ts";
import { lookChain, putChain } from "./infinite-look.ts";
import { delivering, type Delivery } from "./infinite-delivery.ts";
import { askedPages, askPage, chainAfter, pushPages, recordedChain, watchEnabling, watchPages, type AskedPage } from "./infinite-push.ts";
import { countAsk, followFeedJoins, readsClaim } from "./feed-joins.ts";
import { requireStore } from "./require-store.ts";
import type { SharedFetchError } from "./shared-error.ts";
import { orRecorded } from "./recorded-initial-data.ts";
import { inputErrorOf, isRunning, sharedQueryFn, unwrap, type Ask } from "./shared-query-fn.ts";
import { sharedQueryKey } from "./shared-query-options.ts";
import { toRequest } from "./url.ts";

/** Options of a shared infinite query: every `useInfiniteQuery` option, plus the store's lease and your own key. */
export type SharedInfiniteQueryOptionsInput<TPage, TPageParam, TData = InfiniteData<TPage, TPageParam>> = Omit<
  UseInfiniteQueryOptions<TPage, SharedFetchError, TData, QueryKey, TPageParam>,
  "queryKey" | "queryFn"
> & {
  /** Your own query key instead of the default `["shared-fetch", method, first page's url without query, key, "infinite"]`. */
  queryKey?: QueryKey | undefined;
  /** Lease bound for a claim a page's request makes (default: the store's leaseMs). */
  leaseMs?: number | undefined;
};

/** What `sharedInfiniteQueryOptions` returns: TanStack's `infiniteQueryOptions` shape. */
export type SharedInfiniteQueryOptions<TPage, TPageParam, TData = InfiniteData<TPage, TPageParam>> = OmitKeyof<
  UseInfiniteQueryOptions<TPage, SharedFetchError, TData, QueryKey, TPageParam>,
  "queryFn"
> & { queryFn?: QueryFunction<TPage, QueryKey, TPageParam> } & {
  queryKey: DataTag<QueryKey, InfiniteData<TPage, TPageParam>, SharedFetchError>;
};

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;
type Merged = { staleTime?: unknown; networkMode?: FetchRecord["networkMode"]; retry?: unknown };
type Call = {
  options: unknown;
  fetchOptions: FetchRecord["fetchOptions"];
  mountAlways: boolean;
  observed?: FetchRecord["observed"];
  /** The query's options as the fetch began, which TanStack runs it with (its function may run later: paused offline). */
  merged?: Merged;
};

/**
 * An infinite query runs TanStack's own page behavior, never the `behavior` option that tells a
 * shared query why it fetches (fetch-record.ts): each query's `fetch` is watched instead, from its
 * function's first run, so that a `refetch()` or an invalidation asks for newer pages while a
 * mount or focus within staleTime takes any replica's. Before that (a cache restored or hydrated
 * here), a fetch of pages still fresh by the staleTime, unpolled, can only be explicit.
 */
const calls = new WeakMap<object, Call>();
function watchFetches(query: AnyQuery): void {
  if (calls.has(query)) return;
  calls.set(query, { options: undefined, fetchOptions: undefined, mountAlways: false });
  const fetch = query.fetch;
  query.fetch = function (options, fetchOptions) {
    // Its observers' options and its own as it begins: one paused offline runs its pages only once back online.
    const merged = (options ?? query.options) as Merged;
    const was = calls.get(query);
    const running = query.promise;
    calls.set(query, { options, fetchOptions, mountAlways: mountsAlways(query, fetchOptions), observed: optionsOf(query), merged });
    noteFetching(query);
    const fetched = fetch.call(this, options, fetchOptions);
    // A call that joins the fetch running (TanStack hands back its promise, same retryer) leaves it
    // the record it began with: an observer mounted on a paused prefetch would make it retry as its own.
    if (was && running && query.promise === running) calls.set(query, was);
    return fetched;
  };
}

/** A page's retries run in its claim (other replicas wait on that claim, not on a new one per attempt). */
const inClaim = () => false;

/**
 * `useInfiniteQuery` options (the v5 `infiniteQueryOptions` idiom) whose pages are each a request
 * shared by every tab and device: `request(pageParam)` gives a page's request, asked through the
 * store as `sharedQueryOptions` asks its one, so K tabs loading the same page send one request.
 * A mount, focus, poll, `fetchNextPage` or `fetchPreviousPage` takes a page any replica recorded within the staleTime
 * (the poll's interval for a polled query); `refetch()`, `refetchQueries` and `invalidateQueries`
 * ask every page anew, past a request already in flight, as TanStack refetches every page. `retry`
 * and `retryDelay` run in each page's claim. Bad input (an invalid URL for a page) becomes the
 * query's error, a SharedFetchError.
 */
export function sharedInfiniteQueryOptions<TPage = unknown, TPageParam = unknown, TData = InfiniteData<TPage, TPageParam>>(
  store: SharedFetchStore,
  request: (pageParam: TPageParam) => string | SharedRequest,
  options: SharedInfiniteQueryOptionsInput<TPage, TPageParam, TData>,
): SharedInfiniteQueryOptions<TPage, TPageParam, TData> {
  requireStore("sharedInfiniteQueryOptions", store);
  if (typeof request !== "function")
    throw new TypeError(
      `sharedInfiniteQueryOptions: the second argument must be a function (pageParam) => request, got ${shownValue(request)}`,
    );
  const { queryKey: ownKey, leaseMs, retry, retryDelay, enabled, ...rest } = options ?? ({} as typeof options);
  let key: QueryKey;
  let inputError: unknown;
  try {
    key = ownKey ?? [...sharedQueryKey(store, request(rest.initialPageParam)), "infinite"];
  } catch (error) {
    inputError = inputErrorOf(rest.initialPageParam, error);
    key = ["shared-fetch", "invalid", hashKey(messageOf(error)), "infinite"];
  }
  const id = JSON.stringify(key);
  // One demand per fetch of the query (every page of a refetch is asked alike): its signal names it.
  const demands = new WeakMap<AbortSignal, { demand: Demand; fetch: FetchRecord; out?: Delivery | undefined }>();
  const demandFor = (ctx: QueryFunctionContext, query: AnyQuery | undefined) => {
    const known = demands.get(ctx.signal);
    if (known) return known;
    if (query) watchFetches(query);
    const call = query && calls.get(query);
    const merged = (call?.merged ?? query?.options ?? {}) as Merged;
    const observer = (call?.options as { _optimisticResults?: unknown } | undefined)?._optimisticResults !== undefined;
    const defaults = { ...ctx.client.getDefaultOptions().queries, ...ctx.client.getQueryDefaults(ctx.queryKey) };
    const fetch: FetchRecord = {
      fetchOptions: call?.fetchOptions,
      // Yours, else the key's and the client's defaults; the client's methods retry nothing unless told,
      // and a `retry` spread over these options is TanStack's retryer's alone.
      retry: (merged.retry !== undefined && merged.retry !== inClaim
        ? false
        : (retry ?? (observer ? defaults.retry : (defaults.retry ?? false)))) as FetchRecord["retry"],
      retryDelay: (retryDelay ?? defaults.retryDelay) as FetchRecord["retryDelay"],
      networkMode: merged.networkMode,
      staleTime: merged.staleTime,
      observer,
      mountAlways: call?.mountAlways === true,
      observed: call?.observed,
    };
    const more = (query?.state.fetchMeta as { fetchMore?: unknown } | null | undefined)?.fetchMore !== undefined;
    // A next or previous page is new to this tab, asked as a mount asks: within the staleTime.
    let demand: Demand = query ? demandOf(query, more ? { ...fetch, fetchOptions: undefined } : fetch) : { mode: "ensure", maxAgeMs: 0 };
    if (!call?.options && !call?.fetchOptions && !more && demand.mode === "ensure" && !demand.poll)
      if (query?.state.data !== undefined && Date.now() - query.state.dataUpdatedAt < demand.maxAgeMs)
        demand = { mode: "refetch", skipInFlight: true };
    const entry = { demand, fetch, out: query && delivering(query, ctx.signal) };
    demands.set(ctx.signal, entry);
    return entry;
  };
  // The page each fetch asks for now (its signal names the fetch): the one a cancelQueries keeps.
  const asking = new WeakMap<AbortSignal, SharedRequest>();
  const run = async (ctx: QueryFunctionContext, pageRequest: typeof request, ask: Ask): Promise<TPage> => {
    const query = queryOf(ctx);
    // The fetch's first page from nothing (a mount with no chain shown): the recorded chain after it comes along.
    const first = !demands.has(ctx.signal) && query?.state.data === undefined;
    const { demand: asked, fetch, out } = demandFor(ctx, query);
    const param = ctx.pageParam as TPageParam;
    let req: SharedRequest;
    try {
      req = toRequest(pageRequest(param));
    } catch (error) {
      throw inputErrorOf(param, error);
    }
    asking.set(ctx.signal, req);
    // The page a failure of this fetch is for (feed-failure.ts).
    if (out) out.asked = req;
    const extras = store as Partial<SharedFetchStoreExtras>;
    const key = extras.keyOf?.call(store, req);
    // Watched while asked: the claim it waits on shows its failures in the query (claim-failures.ts),
    // read only while the store's asks of the page wait on another replica's claim, another feed
    // asks it too (feed-joins.ts) or a useQuery of its request runs in this tab (a second
    // QueryClient's, whose request it joins): retryPolicy shows the failures of this feed's own
    // request, and a read at each notice of it would cost reads per page (infinite-query-refresh-reads.test.tsx).
    const askedPage: AskedPage = { req, key, id: JSON.stringify(sharedQueryKey(store, req)) };
    // A SharedWorker tab (`hears`) reads throughout (see `snapshot` below), its worker's events unasked.
    if (query) {
      followFeedJoins(extras);
      askPage(query, askedPage);
      countAsk(store, key, 1);
    }
    try {
      const past = pastShownError(extras, "fetch", key, req, () => store.snapshot(req), ask.signal, asked);
      const demand = (past && (await past)) ?? pastRecordedError(asked, () => store.snapshot(req));
      const given: Given = {};
      const opts = Object.assign(ask, { leaseMs, retry: retryPolicy(fetch, query, given) });
      const snap =
        demand.mode === "refetch"
          ? await store.refetch(req, demand.skipInFlight ? { ...opts, skipInFlight: true } : opts)
          : await store.ensure(req, { ...opts, maxAgeMs: demand.maxAgeMs });
      const info = extras.resultInfo?.call(store, req);
      if (info && !snap.error) out?.revs.set(sharedQueryKey(store, req)[3], info.rev);
      const page = unwrap<TPage>(snap, given.error);
      // The query's own options: a maxPages spread over these ones bounds the chain too.
      if (first && out && demand.mode === "ensure")
        out.tail = await chainAfter(
          store,
          request,
          { pages: [page], pageParams: [param] },
          query!.options as typeof rest,
          demand.maxAgeMs,
          ask.signal,
        );
      return page;
    } finally {
      if (query) countAsk(store, key, -1);
      if (query && askedPages.get(query) === askedPage) askPage(query);
    }
  };
  // Other replicas' newer pages reach the query as they are recorded (infinite-push.ts).
  const queryFn = sharedQueryFn(
    store,
    id,
    { req: request, inputError, name: "request" },
    run,
    inputError === undefined
      ? {
          id,
          // The page a fetch asks for, whose claim's failures the bridge shows.
          snapshot: (query) => {
            const page = query && askedPages.get(query);
            // A SharedWorker tab (`hears`) reads throughout: its worker may retry without asking the tab.
            const read =
              page && ((store as Partial<SharedFetchStoreExtras>).hears || readsClaim(store, page.key) || isRunning(store, page.id!));
            return read ? store.snapshot(page.req) : { status: "idle" };
          },
          info: () => undefined,
          // Watched from its first observer on (the bridge calls this then, before the mount's
          // fetch): a cache restored here (a persister) has its first fetch told apart too.
          subscribe: (listener, query) => (watchFetches(query), watchPages(store, request, listener, query)),
          push: (client, query) => pushPages(store, request, client, query),
          look: (done, query) => lookChain(store, request, query, done),
          put: (client, query) => (watchEnabling(client.getQueryCache()), putChain(store, request, query)),
          hold: (ask, signal) => {
            const req = asking.get(signal);
            return req && store.snapshot(req).claim && store.refetch(req, ask);
          },
        }
      : undefined,
  );
  let restoredAt = 0;
  return infiniteQueryOptions({
    ...(rest as Omit<UseInfiniteQueryOptions<TPage, SharedFetchError, TData, QueryKey, TPageParam>, "queryKey" | "queryFn">),
    retry: inClaim,
    // The pages any replica recorded show at once, as a persister's restore shows them, aged by
    // the oldest: TanStack then refetches them on mount when stale (stale-while-revalidate).
    ...orRecorded(
      rest,
      () => {
        const chain = inputError === undefined ? recordedChain(store, request, id, rest) : undefined;
        restoredAt = chain?.at ?? 0;
        return chain?.data;
      },
      () => restoredAt,
    ),
    // Checked as sharedQueryOptions checks it (`user && user.id` with no user is refused, naming
    // it); none given, the client's defaults decide.
    ...notingDisabled(enabled),
    queryKey: key,
    queryFn: queryFn as QueryFunction<TPage, QueryKey, TPageParam>,
  } as UseInfiniteQueryOptions<TPage, SharedFetchError, TData, QueryKey, TPageParam>) as unknown as SharedInfiniteQueryOptions<
    TPage,
    TPageParam,
    TData
  >;
}
