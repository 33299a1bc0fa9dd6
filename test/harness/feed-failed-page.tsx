/**
 * The set-up of the feed tests whose recorded chain ends at a failed page: two devices of a
 * cluster over one host serving pages 0 to 3, device A recording pages, and device B's feed
 * (sharedInfiniteQueryOptions, fresh pages within a minute) with what it showed at each render.
 */
import { QueryClient, useInfiniteQuery, useSuspenseInfiniteQuery } from "@tanstack/react-query";
import { act, render } from "@testing-library/react";
import { StrictMode, Suspense } from "react";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "./render-app.tsx";
import { cluster, until, URL_A } from "./replicas.ts";

type Page = { cursor: number; next: number | null; v: number };
export const pageUrl = (cursor: number) => `${URL_A}?cursor=${cursor}`;

/** Pages 0 to 3 at version `host.v`; a cursor in `host.failing` is answered 500. */
export function setUp() {
  const c = cluster(2, { settleMs: 20, leaseMs: 300, locks: null });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const host = { v: 1, failing: new Set<number>() };
  c.host.auto = (call) => {
    const cursor = Number(new URL(call.url).searchParams.get("cursor"));
    if (host.failing.has(cursor)) return { status: 500, text: "no" };
    return { status: 200, body: { cursor, next: cursor < 3 ? cursor + 1 : null, v: host.v } satisfies Page };
  };
  /** Device A asks for a page: ensure, or refetch (a newer request). */
  const record = async (cursor: number, refetch = false) => {
    const req = { url: pageUrl(cursor) };
    await until(refetch ? a.refetch(req) : a.ensure(req));
  };
  /** Device A refreshes pages in this order, as a refresh of its own feed records them. */
  const refresh = async (...cursors: number[]) => {
    for (const cursor of cursors) {
      a.subscribe({ url: pageUrl(cursor) }, () => {});
      await record(cursor, true);
    }
  };
  /** Device A records `cursors`, then page 2's newer request fails over its older result. */
  const failOverOlder = async (cursors = [0, 1, 2, 3]) => {
    for (const cursor of cursors) await record(cursor);
    host.failing.add(2);
    await record(2, true);
  };
  return { c, b, host, record, refresh, failOverOlder };
}

export type Shown = {
  status: string;
  fetchStatus: string;
  pages: string;
  error?: number;
  failures: number;
  reason?: number;
  more: boolean;
};

/**
 * B's feed, mounted now, what it showed at each render, and its fetchNextPage. `alone`: rendered
 * with its providers at once (`strict`: in StrictMode); else the provider mounted first, as in an app, so that the feed's
 * first render reads its query before it is observed (`before`: the client read it even earlier).
 */
export function feedOf(
  b: SharedFetchStoreWithExtras,
  {
    alone = false,
    suspense = false,
    before = false,
    maxPages,
    enabled,
    refetchOnMount,
    strict = false,
  }: {
    alone?: boolean;
    suspense?: boolean;
    before?: boolean;
    maxPages?: number;
    enabled?: boolean;
    refetchOnMount?: "always";
    strict?: boolean;
  } = {},
) {
  const shown: Shown[] = [];
  let fetchNextPage = () => {};
  const options = sharedInfiniteQueryOptions(b, (cursor: number) => pageUrl(cursor), {
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
    maxPages,
    enabled,
    refetchOnMount,
  });
  // One hook per feed, for all its renders.
  const useFeed = (suspense ? useSuspenseInfiniteQuery : useInfiniteQuery) as typeof useInfiniteQuery;
  function Feed() {
    const r = useFeed(options);
    fetchNextPage = () => void r.fetchNextPage();
    shown.push({
      status: r.status,
      fetchStatus: r.fetchStatus,
      pages: r.data?.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") ?? "",
      error: r.error?.status,
      failures: r.failureCount,
      reason: r.failureReason?.status,
      more: r.hasNextPage,
    });
    return null;
  }
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (alone) render(strict ? <StrictMode>{app(b, <Feed />, client)}</StrictMode> : app(b, <Feed />, client));
  else {
    const view = render(app(b, null, client));
    if (before) {
      void client.ensureInfiniteQueryData(options);
      client.getQueryData(options.queryKey);
    }
    view.rerender(
      app(
        b,
        <Suspense fallback="loading">
          <Feed />
        </Suspense>,
        client,
      ),
    );
  }
  return { shown, last: () => shown.at(-1)!, fetchNextPage: () => act(() => fetchNextPage()), client, options };
}

/** What a feed shows after a failed fetchNextPage: `pages`, its error, one failure, more to ask. */
export const failedAfter = (pages: string) => ({
  status: "error",
  fetchStatus: "idle",
  pages,
  error: 500,
  failures: 1,
  reason: 500,
  more: true,
});
