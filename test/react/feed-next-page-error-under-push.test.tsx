// @vitest-environment jsdom
/**
 * A feed's fetchNextPage fails; then another device refreshes the pages the feed shows, and those
 * newer pages reach it (pushPages). Beside it, a plain `useInfiniteQuery` over the same host.
 *
 * TanStack: a failed fetchNextPage leaves the query in status "error" with its pages, its
 * `failureCount` and `failureReason`, until a later fetch of its own succeeds; nothing else reaches
 * a plain feed here. Data set from outside (`setQueryData`, query.ts `setData` with `manual`) does
 * turn it to "success" and drops `error` (keeping the failure count): TanStack clears the error on
 * setData. The shared feed does not follow that: what a push sets answers none of the feed's own
 * fetches, and the store's snapshot of the page whose fetch failed still says `status: "error"`.
 * As a failed refetch keeps its error beside older pages (feed-older-pages-under-newer-error), the
 * feed keeps its error, failure count and reason beside the newer pages, as the plain feed keeps
 * them beside its pages, while that page's latest outcome is an error. The push turned the feed
 * to "success" with no error and `failureCount` 0, hiding that the next page never came.
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

type Page = { cursor: number; next: number | null; v: number };
const pageUrl = (cursor: number) => `${URL_A}?cursor=${cursor}`;
const plainUrl = (cursor: number) => `${URL_A}/plain?cursor=${cursor}`;
type Shown = {
  status: string;
  fetchStatus: string;
  pages: string;
  error: number | undefined;
  failures: number;
  reason: number | undefined;
};
type Result = {
  status: string;
  fetchStatus: string;
  data?: { pages: Page[] } | undefined;
  error: { status?: number | undefined } | null;
  failureCount: number;
  failureReason: { status?: number | undefined } | null;
};
const shownOf = (r: Result): Shown => ({
  status: r.status,
  fetchStatus: r.fetchStatus,
  pages: r.data?.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") ?? "",
  error: r.error?.status,
  failures: r.failureCount,
  reason: r.failureReason?.status,
});

/** B's shared feed and a plain one beside it (one client, no retries), what each showed, and their fetchNextPage. */
function feeds(b: SharedFetchStoreWithExtras, fetch: typeof globalThis.fetch) {
  const shared: Shown[] = [];
  const plain: Shown[] = [];
  const more: (() => void)[] = [];
  const getNextPageParam = (last: Page) => last.next;
  function Feeds() {
    const s = useInfiniteQuery(
      sharedInfiniteQueryOptions(b, (cursor: number) => pageUrl(cursor), { initialPageParam: 0, getNextPageParam }),
    );
    const p = useInfiniteQuery({
      queryKey: ["plain"],
      initialPageParam: 0,
      getNextPageParam,
      queryFn: async ({ pageParam, signal }): Promise<Page> => {
        const res = await fetch(plainUrl(pageParam), { signal });
        if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
        return (await res.json()) as Page;
      },
    });
    more[0] = () => void s.fetchNextPage();
    more[1] = () => void p.fetchNextPage();
    shared.push(shownOf(s as Result));
    plain.push(shownOf(p as Result));
    return null;
  }
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(app(b, <Feeds />, client));
  return { shared, plain, fetchNextPage: () => act(() => more.forEach((f) => f())) };
}

/** Both feeds show page 0 (version 1); their fetchNextPage fails with a 500. A's store is returned to refresh page 0 at version 2. */
async function nextPageFailed() {
  const c = cluster(2, { settleMs: 20, leaseMs: 300, locks: null });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const host = { v: 1, failing: new Set<number>() };
  c.host.auto = (call) => {
    const cursor = Number(new URL(call.url).searchParams.get("cursor"));
    if (host.failing.has(cursor)) return { status: 500, text: "no" };
    return { status: 200, body: { cursor, next: cursor + 1, v: host.v } satisfies Page };
  };
  const f = feeds(b, c.host.fetch);
  await advance(50);
  expect(f.shared.at(-1)).toMatchObject({ status: "success", pages: "0@1" });
  expect(f.plain.at(-1)).toMatchObject({ status: "success", pages: "0@1" });

  host.failing.add(1);
  f.fetchNextPage();
  await advance(50);
  const failed: Shown = { status: "error", fetchStatus: "idle", pages: "0@1", error: 500, failures: 1, reason: 500 };
  expect(f.plain.at(-1)).toEqual(failed);
  expect(f.shared.at(-1)).toEqual(failed);
  expect(b.snapshot({ url: pageUrl(1) })).toMatchObject({ status: "error", error: { status: 500 } });
  host.v = 2;
  return { c, a, b, f, host };
}

it("a failed fetchNextPage keeps its error, failureCount and failureReason beside another device's newer pages while the failed page's latest outcome is an error, as a plain useInfiniteQuery keeps them; the next fetchNextPage that succeeds clears them", async () => {
  useFakeClock();
  const { a, b, f, host } = await nextPageFailed();
  a.subscribe({ url: pageUrl(0) }, () => {});
  await until(a.refetch({ url: pageUrl(0) }));
  await advance(50);
  expect(b.snapshot({ url: pageUrl(1) })).toMatchObject({ status: "error" });
  expect(f.shared.at(-1)).toEqual({ status: "error", fetchStatus: "idle", pages: "0@2", error: 500, failures: 1, reason: 500 });
  expect(f.plain.at(-1)).toEqual({ status: "error", fetchStatus: "idle", pages: "0@1", error: 500, failures: 1, reason: 500 });
  // Never "success" between the failure and the next fetch of its own.
  expect(f.shared.slice(f.shared.findIndex((s) => s.error === 500)).map((s) => s.status)).not.toContain("success");

  host.failing.clear();
  f.fetchNextPage();
  await advance(50);
  const ok = { status: "success", fetchStatus: "idle", error: undefined, failures: 0, reason: undefined };
  expect(f.shared.at(-1)).toEqual({ ...ok, pages: "0@2 1@2" });
  expect(f.plain.at(-1)).toEqual({ ...ok, pages: "0@1 1@2" });
});

it("the failed page recorded since by another device (its latest outcome a result): newer pages pushed afterwards show as success, as the store's snapshot of that page says", async () => {
  useFakeClock();
  const { a, b, f, host } = await nextPageFailed();
  host.failing.clear();
  for (const cursor of [1, 0]) {
    a.subscribe({ url: pageUrl(cursor) }, () => {});
    await until(a.refetch({ url: pageUrl(cursor) }));
  }
  await advance(50);
  expect(b.snapshot({ url: pageUrl(1) })).toMatchObject({ status: "success", data: { v: 2 } });
  expect(f.shared.at(-1)).toEqual({
    status: "success",
    fetchStatus: "idle",
    pages: "0@2",
    error: undefined,
    failures: 0,
    reason: undefined,
  });
});
