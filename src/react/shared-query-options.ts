import {
  queryOptions,
  replaceEqualDeep,
  type OmitKeyof,
  type QueryFunction,
  type QueryFunctionContext,
  type QueryKey,
  type DataTag,
  type UseQueryOptions,
  type UseQueryResult,
} from "@tanstack/react-query";
import { messageOf } from "../core/fetcher.ts";
import { hashKey } from "../core/key.ts";
import { warnRequestFields } from "../core/options.ts";
import { normalizeRequest, originAndPath } from "../core/request.ts";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { SharedFetchStore, SharedRequest } from "../core/types.ts";
import { demandOf, pastRecordedError, pastShownError, retryPolicy, type Given } from "./demand.ts";
import { notingDisabled, queryOf, recordingBehavior, takeFetch } from "./fetch-record.ts";
import { markDelivered, setByApp, shownSince } from "./push.ts";
import { mayShowRecorded, orRecorded } from "./recorded-initial-data.ts";
import type { SharedFetchError } from "./shared-error.ts";
import { inputErrorOf, sharedQueryFn, unwrap, type Ask } from "./shared-query-fn.ts";
import { absoluteUrl, toRequest } from "./url.ts";
import { requireStore } from "./require-store.ts";

/** Options of a shared query: every `useQuery` option, plus the store's lease and your own key. */
export type SharedQueryOptionsInput<T = unknown, TData = T> = Omit<
  UseQueryOptions<T, SharedFetchError, TData, QueryKey>,
  "queryKey" | "queryFn" | "notifyOnChangeProps"
> & {
  /** TanStack's, whose list may name the hooks' `claim` and `isFetchingAnywhere` too. */
  notifyOnChangeProps?: SharedNotifyOnChangeProps | (() => SharedNotifyOnChangeProps) | undefined;
  /** Your own query key instead of the default `["shared-fetch", method, url without query, key]`. */
  queryKey?: QueryKey | undefined;
  /** Lease bound for a claim this query makes (default: the store's leaseMs). */
  leaseMs?: number | undefined;
};

/** TanStack's `notifyOnChangeProps`, whose list may also name the hooks' `claim` and `isFetchingAnywhere`. */
export type SharedNotifyOnChangeProps = "all" | (keyof UseQueryResult | "claim" | "isFetchingAnywhere")[] | undefined;

type Extras = Partial<SharedFetchStoreExtras>;

/**
 * `["shared-fetch", "GET", "https://host/path", <key>]`: no query string, header value or body (invariant 13).
 * A relative URL resolves as sharedQueryOptions resolves it, so the keys match.
 */
export function sharedQueryKey(store: SharedFetchStore, req: string | SharedRequest): readonly [string, string, string, string] {
  requireStore("sharedQueryKey", store);
  const n = normalizeRequest(toRequest(req));
  const keyOf = (store as Extras).keyOf;
  const key = keyOf ? keyOf.call(store, n) : hashKey(JSON.stringify([n.url, n.method, n.headers, n.body, n.parse]));
  return ["shared-fetch", n.method, originAndPath(n.url), key];
}

/**
 * What `sharedQueryOptions` returns: TanStack's `queryOptions` shape, named through
 * `@tanstack/react-query` so that an app's type checker resolves it there (it need not resolve
 * `@tanstack/query-core` itself, e.g. under pnpm's strict layout).
 */
export type SharedQueryOptions<T, TData = T> = OmitKeyof<UseQueryOptions<T, SharedFetchError, TData, QueryKey>, "queryFn"> & {
  // No `| undefined`: under exactOptionalPropertyTypes, useQuery's and useQueries' options refuse it.
  queryFn?: QueryFunction<T, QueryKey, never>;
  // TanStack's QueryKeyWithDataTag, spelled out: it is exported only from 5.102 on.
} & { queryKey: DataTag<QueryKey, T, SharedFetchError> };

/**
 * `useQuery` options (the v5 `queryOptions` idiom) for a request shared by every tab and device:
 * pass them to useQuery, useSuspenseQuery, useQueries, prefetchQuery, ensureQueryData, fetchQuery,
 * getQueryData, invalidateQueries or HydrationBoundary's queries alike. TanStack's `retry` and
 * `retryDelay` run in the store's claimant (each fetch's retryer gets `retry: false`), so other replicas
 * show pending through the retries and the host sees one sequence of attempts. Freshness options
 * are judged on the recorded result's age (see README, "Coming from TanStack Query"); an explicit
 * refetch (any observer's `refetch()`, refetchQueries, invalidateQueries) asks for a newer revision.
 * Results other replicas record reach the query in this tab whichever hook observes it (see
 * bridge.ts). `null` disables the query. Bad input (an invalid URL) becomes the query's error, a
 * SharedFetchError, never a throw.
 */
export function sharedQueryOptions<T = unknown, TData = T>(
  store: SharedFetchStore,
  request: string | SharedRequest | null,
  options?: SharedQueryOptionsInput<T, TData>,
): SharedQueryOptions<T, TData> {
  const make = () => queryOptionsOf("sharedQueryOptions", store, request, options);
  if (options !== undefined || typeof request !== "string") return make();
  requireStore("sharedQueryOptions", store);
  let url: string;
  try {
    url = absoluteUrl(request);
  } catch {
    return make(); // bad input: the query's error, made as usual
  }
  let known = plainOptions.get(store);
  if (!known) plainOptions.set(store, (known = new Map()));
  let made = known.get(url);
  if (!made) {
    if (known.size >= PLAIN_OPTIONS_MAX) known.clear();
    known.set(url, (made = make()));
  }
  return made as SharedQueryOptions<T, TData>;
}

/**
 * The options of a URL alone, per store, made once: a dashboard's `useQueries` calls
 * sharedQueryOptions for every query on every render, and new functions in each call's options
 * made TanStack update every observer's options and tell the cache (so the bridge) of each: N
 * queries' worth of work per render, and a render per result that arrived. Bounded as keys are
 * (see boundedMemo); each read of what is recorded is live, so the same options serve every render.
 */
const plainOptions = new WeakMap<SharedFetchStore, Map<string, unknown>>();
const PLAIN_OPTIONS_MAX = 4096;

/** sharedQueryOptions as `fn` (the entry point the app called, which a misplaced request field's warning names) builds them. */
export function queryOptionsOf<T, TData>(
  fn: string,
  store: SharedFetchStore,
  request: string | SharedRequest | null,
  options?: SharedQueryOptionsInput<T, TData>,
): SharedQueryOptions<T, TData> {
  requireStore(fn, store);
  warnRequestFields(fn, options);
  const { queryKey: ownKey, leaseMs, behavior, ...rest } = options ?? {};
  let req: SharedRequest | null = null;
  let key: QueryKey;
  let inputError: unknown;
  let work: string | undefined;
  try {
    req = request === null ? null : toRequest(request);
    const shared = req ? sharedQueryKey(store, req) : null;
    work = shared?.[3];
    key = ownKey ?? shared ?? ["shared-fetch", null];
  } catch (error) {
    inputError = inputErrorOf(request, error);
    req = null;
    key = ownKey ?? ["shared-fetch", "invalid", hashKey(messageOf(error))];
  }
  const id = JSON.stringify(key);
  const run = async (ctx: QueryFunctionContext, req: SharedRequest, ask: Ask): Promise<T> => {
    const query = queryOf(ctx);
    const fetch = takeFetch(query);
    const askedAt = Date.now();
    const asked = demandOf(query, fetch);
    const past = pastShownError(store as Extras, "fetch", work, req, () => store.snapshot(req), ask.signal, asked, fetch?.error);
    const demand = (past && (await past)) ?? pastRecordedError(asked, () => store.snapshot(req));
    const given: Given = {};
    const opts = Object.assign(ask, { leaseMs, retry: retryPolicy(fetch, query, given) });
    let snap =
      demand.mode === "refetch"
        ? await store.refetch(req, demand.skipInFlight ? { ...opts, skipInFlight: true } : opts)
        : await store.ensure(req, { ...opts, maxAgeMs: demand.maxAgeMs });
    let info = (store as Extras).resultInfo?.call(store, req);
    // Other data entered the query from outside the store (hydrated, as a navigation's
    // HydrationBoundary does while a joined request runs; the app's own query function) after this
    // answer's request was sent: it is not replaced by an older read. Asked once more, as plain
    // TanStack's request, sent after that data, would answer; the app's setQueryData is overwritten, as there.
    const shown = query && !setByApp.has(query) && shownSince(query);
    if (shown && info && !snap.error && (info.at ?? 0) < shown && replaceEqualDeep(query!.state.data, snap.data) !== query!.state.data) {
      snap = await store.refetch(req, opts);
      info = (store as Extras).resultInfo?.call(store, req);
    }
    // A result sent before this ask (another replica's) keeps its writer's `at` as dataUpdatedAt.
    if (query && info && !snap.error)
      markDelivered(query, info, snap.data, (info.at ?? askedAt) < askedAt ? info.at : undefined, ctx.signal);
    return unwrap<T>(snap, given.error);
  };
  const r = req;
  const queryFn = sharedQueryFn(
    store,
    id,
    { req, inputError, name: "request" },
    run,
    r && work !== undefined
      ? {
          id: work,
          snapshot: () => store.snapshot(r),
          subscribe: (listener) => store.subscribe(r, listener),
          info: () => (store as Extras).resultInfo?.call(store, r),
          hold: (ask) => store.snapshot(r).claim && store.refetch(r, ask),
          look: (done) => (store as Extras).look?.("fetch", r, done),
        }
      : undefined,
  );
  const recorded = () =>
    req && mayShowRecorded(store, id, work)
      ? { snap: store.snapshot(req), info: (store as Extras).resultInfo?.call(store, req) }
      : undefined;
  return queryOptions<T, SharedFetchError, TData, QueryKey>({
    // Its notifyOnChangeProps may name claim and isFetchingAnywhere: TanStack ignores names it lacks.
    ...(rest as Omit<UseQueryOptions<T, SharedFetchError, TData, QueryKey>, "queryKey" | "queryFn">),
    // A result any replica recorded (e.g. persisted in IndexedDB) shows at once, aged by its `at`:
    // TanStack then revalidates it on mount when it is stale (stale-while-revalidate).
    ...orRecorded(
      rest,
      () => {
        const r = recorded();
        return r?.info && r.snap.data !== undefined ? (r.snap.data as T) : undefined;
      },
      // A record that predates ages is of unknown age: as old as can be.
      () => recorded()?.info?.at ?? 0,
    ),
    ...notingDisabled(req === null && inputError === undefined ? false : rest.enabled),
    queryKey: key,
    queryFn,
    // Tells the query function why TanStack runs it (see demandOf).
    behavior: recordingBehavior(behavior),
  });
}
