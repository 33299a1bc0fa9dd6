import { hashKey, type Query, type QueryCache, type QueryClient } from "@tanstack/react-query";
import { isFresh } from "../core/freshness.ts";
import type { SharedFetchStoreExtras } from "../core/store-extras.ts";
import type { SharedFetchStore, SharedRequest, SnapshotError } from "../core/types.ts";
import { keepFailure, showRestoredFailure } from "./feed-failure.ts";
import { delivered, pagesDelivered } from "./infinite-delivery.ts";
import { setByApp, shownSince } from "./push.ts";
import { mayShowRecorded } from "./recorded-initial-data.ts";
import { sharedQueryKey } from "./shared-query-options.ts";
import { toRequest } from "./url.ts";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;
export type Pages = { pages: unknown[]; pageParams: unknown[] };
export type PageRequest = (pageParam: never) => string | SharedRequest;
type NextParam = (last: never, pages: never[], lastParam: never, pageParams: never[]) => unknown;
type Page = { req: SharedRequest; key: string; data?: unknown; error?: unknown; rev?: number; at: number; ahead?: true | undefined };

/** A page's request, its key and what is recorded for it (nothing for a param that makes no request). */
function pageOf(store: SharedFetchStore, request: PageRequest, param: unknown): Page | undefined {
  try {
    const req = toRequest(request(param as never));
    const info = (store as Partial<SharedFetchStoreExtras>).resultInfo?.call(store, req);
    const { data, error } = (info && store.snapshot(req)) || {};
    return { req, key: sharedQueryKey(store, req)[3], data, error, rev: info?.rev, at: info?.at ?? 0, ahead: info?.ahead };
  } catch {
    return undefined;
  }
}

/** The param after `pages`, as TanStack computes it; a getNextPageParam that throws on a page (a malformed record) ends the chain. */
function nextParam(next: NextParam, pages: unknown[], pageParams: unknown[]): unknown {
  try {
    return next(pages.at(-1) as never, pages as never[], pageParams.at(-1) as never, pageParams as never[]);
  } catch {
    return undefined;
  }
}

const same = (a: unknown, b: unknown) => hashKey([a]) === hashKey([b]);

/** The chain a mount restored from the records (TanStack keeps it as the query's initial data), by that data object. */
const restored = new WeakMap<object, Tail>();

/** A page whose latest outcome is an error, which ended a chain restored from the records. */
export type Failed = { req: SharedRequest; error: SnapshotError; store: SharedFetchStore };

/**
 * A chain restored from the records (or its pages after a first page): their data, params,
 * revisions and oldest writer's date; `failed`: the page after them whose latest outcome is an error.
 */
export type Tail = Pages & { revs: Map<string, number>; at: number; failed?: Failed | undefined };

/**
 * Takes `param`'s recorded page into a chain restored from the records, as every such chain takes
 * it (a mount's, recordedChain; one after a first page fetched from nothing, chainAfter); false:
 * the chain ends before it. A page past the first (`keys`: those in the chain) whose latest
 * outcome is an error, whatever its age (the store's snapshot says "error"), ends it as
 * `chain.failed`, which the feed shows as a failed fetchNextPage: neither that page's older data
 * nor pages past it, which a chain broken by that failure does not reach. So does a page with no
 * result, one older than `maxAgeMs`, and one already in the chain (a cursor that cycles).
 */
function take(store: SharedFetchStore, chain: Tail, keys: Set<string | undefined>, page: Page, param: unknown, maxAgeMs: number): boolean {
  if (keys.has(page.key)) return false;
  const { error } = keys.size ? store.snapshot(page.req) : {};
  if (error) chain.failed = { req: page.req, error, store };
  if (error || page.data === undefined || !isFresh(page.at, Date.now(), maxAgeMs)) return false;
  keys.add(page.key);
  chain.pages.push(page.data);
  chain.pageParams.push(param);
  chain.revs.set(page.key, page.rev!);
  chain.at = Math.min(chain.at, page.at);
  return true;
}

export type ChainOptions = { initialPageParam: unknown; getNextPageParam: NextParam; maxPages?: number | undefined };

/**
 * The pages recorded from the first on, each next pageParam while its page is recorded and `known`
 * (read where the store keeps it current), `maxPages` at most, dated by the oldest page's writer;
 * `next`: the page that ended it by not being known.
 */
export function chainOf(store: SharedFetchStore, request: PageRequest, options: ChainOptions, known: (key: string) => boolean) {
  const data: Tail = { pages: [], pageParams: [], revs: new Map(), at: Infinity };
  const keys = new Set<string>();
  let next: Page | undefined;
  let param = options.initialPageParam;
  while (data.pages.length < (options.maxPages || Infinity)) {
    const page = pageOf(store, request, param);
    if (!page) break;
    if (!known(page.key)) {
      next = page;
      break;
    }
    if (!take(store, data, keys, page, param, Infinity)) break;
    param = nextParam(options.getNextPageParam, data.pages, data.pageParams);
    if (param == null) break;
  }
  const chain = { pages: data.pages, pageParams: data.pageParams };
  restored.set(chain, data);
  return { data: chain, at: data.at, next };
}

/**
 * The pages any replica recorded, as a reload shows them (a persister's restore): the first page,
 * then each next pageParam while its page is recorded, `maxPages` at most; dated by the oldest
 * page's writer, so the chain refetches (every page, as TanStack does) once any page of it is stale.
 */
export function recordedChain(store: SharedFetchStore, request: PageRequest, id: string, options: ChainOptions) {
  const chain = chainOf(store, request, options, (key) => mayShowRecorded(store, id, key));
  return chain.data.pages.length ? chain : undefined;
}

/**
 * The chain recorded after the first page a fetch from nothing got (`data`), each page within
 * `maxAgeMs`, `maxPages` in all at most, ended as `take` ends it: what a mount with the chain
 * recorded shows (recordedChain).
 * A SharedWorker tab learns each page from the worker first (`heard`: no request); the tab's
 * first render could not show them, having no doc of its own.
 */
export async function chainAfter(
  store: SharedFetchStore,
  request: PageRequest,
  data: Pages,
  options: { getNextPageParam: NextParam; maxPages?: number | undefined },
  maxAgeMs: number,
  signal: AbortSignal,
): Promise<Tail | undefined> {
  const all = { pages: [...data.pages], pageParams: [...data.pageParams] };
  const first = pageOf(store, request, all.pageParams[0]);
  const tail: Tail = { pages: [], pageParams: [], revs: new Map(), at: first?.at ?? 0 };
  const keys = new Set([first?.key]);
  const heard = (store as Partial<SharedFetchStoreExtras>).heard;
  for (let param; all.pages.length < (options.maxPages || Infinity);) {
    if ((param = nextParam(options.getNextPageParam, all.pages, all.pageParams)) == null) break;
    const req = pageOf(store, request, param)?.req;
    if (!req) break;
    try {
      await heard?.call(store, "fetch", req, signal);
    } catch {
      break; // the fetch was cancelled: TanStack drops what it delivers
    }
    if (!take(store, tail, keys, pageOf(store, request, param)!, param, maxAgeMs)) break;
    all.pages.push(tail.pages.at(-1));
    all.pageParams.push(param);
  }
  return tail.pages.length || tail.failed ? tail : undefined;
}

/** The revision each page the query shows was delivered at, the restored chain's included. */
function revsOf(query: AnyQuery): Map<string, number> {
  // The data the query was made with (again after resetQueries or a cancelled first fetch) holds
  // none of the pages delivered since: only its restored revisions tell what it shows.
  const revs = (query.state.dataUpdateCount ? delivered.get(query) : undefined) ?? new Map<string, number>();
  if (shownSince(query) !== undefined) revs.clear();
  for (const [key, rev] of restored.get(query.state.data as object)?.revs ?? []) if (!revs.has(key)) revs.set(key, rev);
  return revs;
}

/**
 * Another replica's newer pages, into an observed infinite query of this tab: only when every page
 * it shows has a newer recorded result (a later revision than the one shown, or, for pages set
 * from outside the store, written after them), recorded in page order as one refresh records them,
 * and the chain still holds (each shown pageParam is what getNextPageParam gives for the newer
 * page before it), i.e. what a refetch here would show.
 * Else the pages stay until the query fetches: never a mix of two refreshes, never an error over
 * data (only recorded results are put). Set as setQueryData sets it (structural sharing kept),
 * dated by the oldest page's writer; the feed's own error stays beside them (keepFailure).
 */
export function pushPages(store: SharedFetchStore, request: PageRequest, client: QueryClient, query: AnyQuery): void {
  watchEnabling(client.getQueryCache());
  showRestoredFailure(store, query, restored.get(query.state.data as object));
  const { state } = query;
  const shown = state.data as Pages | undefined;
  syncs.get(query)?.();
  if (state.fetchStatus !== "idle" || !shown?.pages?.length || !Array.isArray(shown.pageParams)) return;
  const revs = revsOf(query);
  const next = (query.options as { getNextPageParam?: NextParam }).getNextPageParam;
  const older = (page: Page | undefined) => {
    if (page?.data === undefined) return true;
    const was = revs.get(page.key);
    // A page dated in our future (its writer's clock ahead) may have been requested before the
    // app's own set: when cannot be told per page, so it never replaces what the app set.
    return was === undefined ? page.at <= state.dataUpdatedAt || (page.ahead && setByApp.has(query)) : page.rev! <= was;
  };
  // One refresh records its last page last: until then, each of its pages' notices reads one page, not the chain.
  if (older(pageOf(store, request, shown.pageParams.at(-1)))) return;
  const pages: unknown[] = [];
  const newer = new Map<string, number>();
  let failed: unknown;
  let last = 0;
  let first = 0;
  for (const [i, param] of shown.pageParams.entries()) {
    const page = pageOf(store, request, param);
    if (older(page)) return;
    // One refresh records its pages in order: a page written before the one ahead of it is another refresh's.
    if (page!.at < last) return;
    if (i > 0 && (!next || !same(nextParam(next, pages, shown.pageParams.slice(0, i)), param))) return;
    pages.push(page!.data);
    newer.set(page!.key, page!.rev!);
    failed ||= page!.error;
    last = page!.at;
    if (!i) first = last;
  }
  // The first page is the oldest; one dated in our future (a writer's clock ahead) is as young as now.
  const at = Math.min(first, Date.now());
  const mine = pagesDelivered(query);
  for (const [key, rev] of newer) mine.set(key, rev);
  // Not `manual`: that is the app's own set, which makes the data come from outside the store.
  query.setData({ pages, pageParams: shown.pageParams }, { updatedAt: at, manual: false });
  // A pushed page whose latest outcome is still the error the feed shows (a refetch sent after its
  // request failed) keeps it, as TanStack keeps a failed refetch's error beside the pages (invariant 7).
  keepFailure(store, query, state, failed);
  // Invalidated here and not refetched (refetchType "none"): it stays so, as nothing tells whether
  // these pages answer what the invalidation was for.
  if (state.isInvalidated) void client.invalidateQueries({ queryKey: query.queryKey, exact: true, refetchType: "none" });
}

/** Query caches whose `build` is watched for disabled feeds' observers that render enabled. */
const builds = new WeakSet<QueryCache>();

/**
 * A feed observed by disabled observers alone, on a restored chain that ends at a failed page,
 * shows that page's error from the render that enables it, as a mount shows it from its first,
 * where the options it renders with say it will not fetch: the cache's `build` hands it to that
 * render with them (an observer's render marks them `_optimisticResults`), while the query still
 * has the disabled ones (an effect sets them). Watched from a feed's first read or look on.
 */
export function watchEnabling(cache: QueryCache): void {
  if (builds.has(cache)) return;
  builds.add(cache);
  const build = cache.build.bind(cache) as (...args: unknown[]) => AnyQuery;
  cache.build = ((...args: [unknown, object, unknown?]) => {
    const query = build(...args);
    const chain = restored.get(query.state.data as object);
    if (chain?.failed && "_optimisticResults" in args[1] && query.observers.length && !query.isActive())
      showRestoredFailure(chain.failed.store, query, chain, args[1]);
    return query;
  }) as never;
}

/** Per watched query: subscribes to the requests of the pages it shows now. */
const syncs = new WeakMap<object, () => void>();

/** A page a feed's fetch asks for, its request key, and the id of a useQuery of that request (its default key). */
export type AskedPage = { req: SharedRequest; key?: string | undefined; id?: string };

/**
 * The page each feed's fetch asks for now: watched with the pages the feed shows, so that the
 * failures of a claim it waits on (another replica's retries) show in it (claim-failures.ts).
 */
export const askedPages = new WeakMap<object, AskedPage>();

/** Notes the page a feed's fetch asks for (none: its ask ended) and watches it. */
export function askPage(query: AnyQuery, asked?: AskedPage): void {
  if (asked) askedPages.set(query, asked);
  else askedPages.delete(query);
  syncs.get(query)?.();
}

/** The bridge's watch of an infinite query: the store's notices of each page it shows, followed as pages come and go. */
export function watchPages(store: SharedFetchStore, request: PageRequest, listener: () => void, query: AnyQuery): () => void {
  const subs = new Map<string, () => void>();
  let params: unknown;
  let asked: AskedPage | undefined;
  let askedOff: (() => void) | undefined;
  const sync = () => {
    const asking = askedPages.get(query);
    if (asking !== asked) {
      askedOff?.();
      asked = asking;
      // Apart from the pages shown: a page asked for anew is often shown too, and a fetch asks for each page in turn.
      askedOff = asking && store.subscribe(asking.req, () => listener());
    }
    const pageParams = (query.state.data as Pages | undefined)?.pageParams;
    if (pageParams === params) return;
    params = pageParams;
    const wanted = new Map<string, SharedRequest>();
    for (const param of Array.isArray(pageParams) ? pageParams : []) {
      const page = pageOf(store, request, param);
      if (page) wanted.set(page.key, page.req);
    }
    for (const [key, off] of subs)
      if (!wanted.delete(key)) {
        off();
        subs.delete(key);
      }
    for (const [key, req] of wanted) subs.set(key, store.subscribe(req, listener));
  };
  syncs.set(query, sync);
  sync();
  return () => {
    if (syncs.get(query) === sync) syncs.delete(query);
    subs.forEach((off) => off());
    askedOff?.();
  };
}
