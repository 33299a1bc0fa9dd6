// @vitest-environment jsdom
/**
 * A feed mounted after its pages were recorded, whose first page it fetches from nothing: the
 * chain recorded after that page comes along (chainAfter), page after page from the store. A page
 * of it whose latest outcome is an error (the store's snapshot says `status: "error"`) was not
 * checked: a page with no result ended the chain with no error shown, and a page whose newer
 * request failed over an older result showed that result and the pages past it, as if the chain
 * were whole. The chain now ends before that page and the feed shows its error as TanStack shows
 * a fetchNextPage that failed: the pages before it kept, status "error", `error`, `failureCount`
 * 1 and `failureReason`; its next fetchNextPage asks for the page anew.
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

/** Pages 0 to 3 at version `host.v`; a cursor in `host.failing` is answered 500. */
function setUp() {
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
  return { c, b, host, record };
}

/** B's feed, mounted now (fresh pages within a minute), what it showed at each render, and its fetchNextPage. */
function feedOf(b: SharedFetchStoreWithExtras) {
  const shown: { status: string; fetchStatus: string; pages: string; error?: number; failures: number; reason?: number; more: boolean }[] =
    [];
  let fetchNextPage = () => {};
  function Feed() {
    const r = useInfiniteQuery(
      sharedInfiniteQueryOptions(b, (cursor: number) => pageUrl(cursor), {
        initialPageParam: 0,
        getNextPageParam: (last: Page) => last.next,
        staleTime: 60_000,
      }),
    );
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
  render(app(b, <Feed />, new QueryClient({ defaultOptions: { queries: { retry: false } } })));
  return { shown, last: () => shown.at(-1)!, fetchNextPage: () => act(() => fetchNextPage()) };
}

const failedAfter = (pages: string) => ({ status: "error", fetchStatus: "idle", pages, error: 500, failures: 1, reason: 500, more: true });

it("a recorded page with no result, only an error: the restored chain shows the pages before it with its error, as a failed fetchNextPage shows it", async () => {
  useFakeClock();
  const { c, b, host, record } = setUp();
  await record(1);
  host.failing.add(2);
  await record(2);
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "error", error: { status: 500 } });
  const calls = c.host.calls.length;

  const feed = feedOf(b);
  await advance(50);
  expect(c.host.calls.slice(calls).map((call) => call.url)).toEqual([pageUrl(0)]);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));

  // Its next fetchNextPage asks for the failed page anew.
  host.failing.clear();
  host.v = 2;
  feed.fetchNextPage();
  await advance(50);
  expect(c.host.calls.slice(calls).map((call) => call.url)).toEqual([pageUrl(0), pageUrl(2)]);
  expect(feed.last()).toEqual({ status: "success", fetchStatus: "idle", pages: "0@1 1@1 2@2", failures: 0, more: true });
});

it("a recorded page whose newer request failed over an older result: the restored chain ends before it (neither its older data nor the pages past it) and shows its error", async () => {
  useFakeClock();
  const { b, host, record } = setUp();
  for (const cursor of [1, 2, 3]) await record(cursor);
  host.failing.add(2);
  await record(2, true);
  expect(b.snapshot({ url: pageUrl(2) })).toMatchObject({ status: "error", data: { v: 1 }, error: { status: 500 } });

  const feed = feedOf(b);
  await advance(50);
  expect(feed.last()).toEqual(failedAfter("0@1 1@1"));
  expect(feed.shown.map((s) => s.pages)).not.toContain("0@1 1@1 2@1 3@1");
});
