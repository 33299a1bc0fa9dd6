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
import { SharedFetchInputError, shownValue } from "../core/errors.ts";
import { messageOf } from "../core/fetcher.ts";
import { hashKey } from "../core/key.ts";
import { warnRequestFields } from "../core/options.ts";
import { normalizeRequest, originAndPath } from "../core/request.ts";
import type { RetryPolicy } from "../core/retry.ts";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { SharedFetchStore, SharedRequest, Snapshot } from "../core/types.ts";
import { ensureBridge, registerQueryFn, type Registration } from "./bridge.ts";
import { demandOf, pastRecordedError, pastShownError, retryPolicy, type Given } from "./demand.ts";
import { notingDisabled, queryOf, recordingBehavior, takeFetch } from "./fetch-record.ts";
import { devtoolsHeld, markDelivered, setByApp, shownSince, storeInitial } from "./push.ts";
import { asQueryError, errorOf, SharedFetchError } from "./shared-error.ts";
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

/** What a shared query function asks the store with: its signal, and the lease and retries `run` sets (a cancelQueries hold keeps them). */
export type Ask = { signal: AbortSignal; leaseMs?: number | undefined; retry?: RetryPolicy };

/**
 * Keys whose query function runs in this tab, per store, in all and per QueryClient. TanStack
 * consults `initialData` again on every options update while a query has no data; while our own
 * query function runs it delivers the result itself (as plain useQuery would), so `initialData`
 * must not slip it in first. A hook's view waits for its own client's function only: another
 * client's query on the same store (a second pane) delivers nothing to this one.
 */
type Counts = Map<string, number>;
const running = new WeakMap<object, { all: Counts; byClient: WeakMap<object, Counts> }>();

function count(counts: Counts, key: string, by: 1 | -1): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export function trackRunning<T>(store: object, client: object, key: string, work: () => Promise<T>): Promise<T> {
  let scope = running.get(store);
  if (!scope) running.set(store, (scope = { all: new Map(), byClient: new WeakMap() }));
  let mine = scope.byClient.get(client);
  if (!mine) scope.byClient.set(client, (mine = new Map()));
  const counts = [scope.all, mine];
  for (const m of counts) count(m, key, 1);
  return work().finally(() => counts.forEach((m) => count(m, key, -1)));
}

/** Whether a query function of this key runs for the store: in `client`'s cache, or in any. */
export function isRunning(store: object, key: string, client?: object): boolean {
  const scope = running.get(store);
  const counts = client === undefined ? scope?.all : scope?.byClient.get(client);
  return (counts?.get(key) ?? 0) > 0;
}

/**
 * Bad input as the query's error: the store's SharedFetchInputError (anything else thrown while
 * reading the input is one too), as a SharedFetchError whose `cause` it is.
 */
export function inputErrorOf(input: unknown, error: unknown): unknown {
  const typed =
    error instanceof SharedFetchInputError
      ? error
      : new SharedFetchInputError(`shared-fetch: ${shownValue(input)} is not a request: ${messageOf(error)}`, { cause: error });
  return asQueryError(typed);
}

/**
 * The query function of a shared query (a fetch or a program) around its `run`: bad input and a
 * forced fetch of a disabled query (`req` null) as its error, the bridge of the client it runs in
 * ensured (a tab that renders TanStack's own hooks outside a provider that sees its client still
 * receives the results other replicas record), the run counted (trackRunning) and its failure a
 * SharedFetchError. With `watch`, the bridge knows how to read the query's record.
 */
export function sharedQueryFn<T, R>(
  store: SharedFetchStore,
  id: string,
  input: { req: R | null; inputError: unknown; name: string },
  run: (ctx: QueryFunctionContext, req: R, ask: Ask) => Promise<T>,
  watch: (Omit<Registration, "store"> & Keeps) | undefined,
): (ctx: QueryFunctionContext) => Promise<T> {
  const { req, inputError, name } = input;
  const queryFn = async (ctx: QueryFunctionContext): Promise<T> => {
    if (inputError !== undefined) throw inputError;
    if (req === null) throw new SharedFetchError({ message: `shared-fetch: this query is disabled (its ${name} is null)` });
    ensureBridge(ctx.client, store);
    // TanStack aborts a query's fetch when its last observer goes, even when another mounts the
    // same key in that commit (a route change, a remount, StrictMode): its fetch, asked in the
    // same tick, must find this request still wanted and join it rather than send it again.
    const later = new AbortController();
    const ask: Ask = { signal: later.signal };
    ctx.signal.onabort = () =>
      queueMicrotask(() => {
        holdCancelled(ctx, watch, ask);
        later.abort();
      });
    return trackRunning(store, ctx.client, id, () => run(ctx, req, ask)).catch((error: unknown) => {
      // Its store was destroyed while it waited (the store's own AbortError, not ours), after the
      // provider was given another (the effect that made the old one destroys it as the new one
      // renders): the query's function now asks the new store, and finishes this fetch.
      const next = queryOf(ctx)?.options.queryFn;
      if ((error as Error | undefined)?.name !== "AbortError" || later.signal.aborted || next === queryFn || typeof next !== "function")
        throw asQueryError(error);
      return (next as typeof queryFn)(ctx);
    });
  };
  if (watch) registerQueryFn(queryFn, { store, ...watch });
  return queryFn;
}

/**
 * TanStack cancelled the fetch of a query that panes still observe, and started none in its place
 * (`cancelQueries`, as an optimistic update's onMutate does): the request claimed for the key (a
 * feed's: for the page it was asking; none yet, nothing is sent) goes on for them and for the replicas that joined it, until the query fetches again or is
 * observed no more. Aborted, another replica would take it over and send it again after the
 * optimistic set, and its answer, read before the mutation, would replace the optimistic data.
 */
function holdCancelled(ctx: QueryFunctionContext, watch: Keeps | undefined, ask: Ask) {
  const query = queryOf(ctx);
  if (!watch || !query?.getObserversCount() || query.state.fetchStatus !== "idle") return;
  const hold = new AbortController();
  // With the fetch's lease and retries: it takes the request over when its claimant dies.
  const kept = watch.hold({ ...ask, signal: hold.signal }, ctx.signal);
  if (!kept) return;
  // A microtask later: a fetch that starts now (a focus, a prefetch) joins it first.
  const off = onHeldQuery(ctx.client.getQueryCache(), query, () => queueMicrotask(() => hold.abort()));
  kept.then(off, off);
}

type Cache = ReturnType<QueryFunctionContext["client"]["getQueryCache"]>;
/**
 * The held queries of each cache, and what ends each hold, behind one cache listener: a listener
 * per hold made every event of a page that cancelled N queries (cancelQueries()) cost N calls.
 */
const held = new WeakMap<Cache, { off: () => void; ends: Map<object, Set<() => void>> }>();

/** Calls `end` when the query is removed, observed no more or fetches again; returns the release. */
function onHeldQuery(cache: Cache, query: object, end: () => void): () => void {
  let scope = held.get(cache);
  if (!scope) {
    const ends = new Map<object, Set<() => void>>();
    const off = cache.subscribe(({ query: q, type }) => {
      if (ends.has(q) && (type === "removed" || !q.getObserversCount() || q.state.fetchStatus !== "idle")) ends.get(q)!.forEach((f) => f());
    });
    held.set(cache, (scope = { off, ends }));
  }
  const { ends, off } = scope;
  const mine = ends.get(query) ?? new Set();
  ends.set(query, mine.add(end));
  // Each hold lets go once (its request settled): the last one out stops the listener.
  return () => {
    if (mine.delete(end) && !mine.size) ends.delete(query);
    if (!ends.size) {
      held.delete(cache);
      off();
    }
  };
}

/**
 * How a shared query keeps the request its cancelled fetch (TanStack's `signal`) was asking for:
 * the store's ask, or nothing when no claim stands for it (nothing was sent).
 */
export type Keeps = { hold(ask: Ask, signal: AbortSignal): Promise<unknown> | undefined };

/**
 * The latest recorded outcome as TanStack wants it: the data, or a thrown SharedFetchError; `given`
 * (the one this fetch's retry functions were last given) when it says the same.
 */
export function unwrap<T>(snap: Snapshot, given?: SharedFetchError): T {
  if (snap.error) throw errorOf(snap.error, given);
  return snap.data as T;
}

/**
 * Whether a query may show what the store recorded for its work (`work`: the store's key, absent
 * for bad input) as its initialData: not while its own query function runs (that delivers), nor
 * while the Query devtools hold it in a state of theirs (push.ts, devtoolsHeld), and not a record
 * the store no longer hears of (a SharedWorker tab's key it stopped showing: its age would be
 * taken as fresh where another tab has recorded newer data since).
 */
export function mayShowRecorded(store: SharedFetchStore, id: string, work: string | undefined): boolean {
  return (
    work !== undefined &&
    !isRunning(store, id) &&
    ![...devtoolsHeld].some((query) => JSON.stringify(query.queryKey) == id) &&
    (store as Extras).hears?.call(store, work) !== false
  );
}

/**
 * The query's `initialData` and its date, after the caller's (`given`): the caller's own, else what
 * the store recorded. An explicit `initialData: undefined` means none of the caller's, and so does
 * a function of the caller's that finds none (TanStack's "initial data from the cache" recipe):
 * the recorded result still shows at once. TanStack asks the date right after the data it dates.
 */
export function orRecorded<T>(
  given: { initialData?: unknown; initialDataUpdatedAt?: unknown },
  data: () => T | undefined,
  at: () => number,
) {
  const { initialData: mine, initialDataUpdatedAt: mineAt } = given;
  if (mine !== undefined && typeof mine !== "function") return {};
  let own: T | undefined;
  const initialData = (): T | undefined => ((own = typeof mine === "function" ? mine() : undefined) !== undefined ? own : data());
  storeInitial.set(initialData, () => own === undefined);
  return {
    initialData,
    initialDataUpdatedAt: (): number | undefined =>
      own === undefined ? at() : typeof mineAt === "function" ? mineAt() : (mineAt as number | undefined),
  };
}

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
