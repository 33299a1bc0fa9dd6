// @vitest-environment jsdom
/**
 * Invariant 7 (an error never erases a result) as a feed shows it: device B's feed shows page 0
 * (revision 1); device A refetches that page (revision 2, in flight); B, cut off from A, refetches
 * its feed past A's request (revision 3, once A is silent) and that request fails, which the feed
 * shows beside its pages, as TanStack keeps a failed refetch's error, `failureCount` and
 * `failureReason` beside the pages. Healed, A's page lands below B's newer error: the store shows
 * it as page 0's data with status "error". The push of those newer pages turned the feed to
 * "success", its error and failure count gone. It now shows the newer pages with the error kept,
 * until a later success clears it (a refetch, a fetchNextPage).
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { background, cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const LEASE = 300;
type Page = { cursor: number; next: number | null; v: number };
const pageUrl = (cursor: number) => `${URL_A}?cursor=${cursor}`;
const body = (cursor: number, v: number, last: number): Page => ({ cursor, next: cursor < last ? cursor + 1 : null, v });
type Shown = {
  status: string;
  fetchStatus: string;
  pages: string;
  error: number | undefined;
  failures: number;
  reason: number | undefined;
};

/** B's feed, what it showed at each render, and its refetch and fetchNextPage. */
function feedOf(b: SharedFetchStoreWithExtras, maxPages?: number) {
  const shown: Shown[] = [];
  const q = { refetch: () => {}, fetchNextPage: () => {} };
  function Feed() {
    const r = useInfiniteQuery(
      sharedInfiniteQueryOptions(b, (cursor: number) => pageUrl(cursor), {
        initialPageParam: 0,
        getNextPageParam: (last: Page) => last.next,
        maxPages,
      }),
    );
    q.refetch = () => void r.refetch();
    q.fetchNextPage = () => void r.fetchNextPage();
    shown.push({
      status: r.status,
      fetchStatus: r.fetchStatus,
      pages: r.data?.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") ?? "",
      error: r.error?.status,
      failures: r.failureCount,
      reason: r.failureReason?.status,
    });
    return null;
  }
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(app(b, <Feed />, client));
  return { shown, q, last: () => shown.at(-1)! };
}

/** What the feed shows of pages `first` to `pages - 1`, each at version `v`. */
const pagesAt = (first: number, pages: number, v: number) => Array.from({ length: pages - first }, (_, i) => `${first + i}@${v}`).join(" ");

/**
 * B's feed shows `pages` pages at version 1 (the first ones dropped by maxPages), one more after
 * them for fetchNextPage; then the scenario above on the first page it shows: A's refresh in
 * flight, B's refetch past it failing, A's pages landing.
 */
async function olderPagesUnderError(pages: number, maxPages?: number) {
  const c = cluster(2, { settleMs: 20, leaseMs: LEASE, locks: null });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  c.host.auto = (call) => ({ status: 200, body: body(Number(new URL(call.url).searchParams.get("cursor")), 1, pages) });
  const feed = feedOf(b, maxPages);
  await advance(50);
  for (let i = 1; i < pages; i++) {
    act(() => feed.q.fetchNextPage());
    await advance(50);
  }
  const first = pages - (maxPages ?? pages);
  const at1 = pagesAt(first, pages, 1);
  expect(feed.last()).toMatchObject({ status: "success", pages: at1 });
  const calls = c.host.calls.length;

  c.host.auto = undefined;
  // A refreshes every page the feed shows: revision 2 of each, the first in flight.
  const shownUrls = Array.from({ length: pages - first }, (_, i) => ({ url: pageUrl(first + i) }));
  for (const req of shownUrls) a.subscribe(req, () => {}); // A shows them: its requests live on once its asks are answered
  const refresh = (async () => {
    for (const req of shownUrls) await a.refetch(req);
  })();
  background(refresh);
  await advance(50);
  expect(c.host.calls).toHaveLength(calls + 1);
  c.net.isolate(c.docOf(b));
  act(() => feed.q.refetch()); // past A's revision 2: B takes the first page over at 3 once A is silent
  await advance(LEASE + 50);
  expect(c.host.calls).toHaveLength(calls + 2);
  await act(async () => c.host.calls[calls + 1]!.respond(500, "no"));
  await advance(10);
  // TanStack's failed refetch: the error beside the pages shown, its failure counted.
  expect(feed.last()).toEqual({ status: "error", fetchStatus: "idle", pages: at1, error: 500, failures: 1, reason: 500 });

  c.net.heal();
  await advance(10);
  await act(async () => c.host.calls[calls]!.respond(200, body(first, 2, pages)));
  for (let i = 1; i < shownUrls.length; i++) {
    await advance(50);
    const call = c.host.calls.at(-1)!;
    await act(async () => call.respond(200, body(first + i, 2, pages)));
  }
  await advance(50);
  await refresh;
  expect(b.snapshot(shownUrls[0]!)).toMatchObject({ status: "error", data: { v: 2 }, error: { status: 500 } });
  return { c, feed, first };
}

for (const [pages, maxPages] of [[1], [2], [3, 2]] as const)
  it(`a feed of ${pages} page(s)${maxPages ? ` (maxPages ${maxPages})` : ""} whose refetch failed takes another device's older pages that land afterwards with its error kept, as TanStack keeps a failed refetch's error beside the pages; a later refetch clears it`, async () => {
    useFakeClock();
    const { c, feed, first } = await olderPagesUnderError(pages, maxPages);
    expect(feed.last()).toEqual({
      status: "error",
      fetchStatus: "idle",
      pages: pagesAt(first, pages, 2),
      error: 500,
      failures: 1,
      reason: 500,
    });
    // Never "success" once the error showed.
    expect(feed.shown.slice(feed.shown.findIndex((s) => s.error === 500)).map((s) => s.status)).not.toContain("success");

    const calls = c.host.calls.length;
    act(() => feed.q.refetch());
    for (let i = first; i < pages; i++) {
      await advance(50);
      await act(async () => c.host.calls.at(-1)!.respond(200, body(i, 3, pages)));
    }
    await advance(50);
    expect(c.host.calls).toHaveLength(calls + pages - first);
    expect(feed.last()).toEqual({
      status: "success",
      fetchStatus: "idle",
      pages: pagesAt(first, pages, 3),
      error: undefined,
      failures: 0,
      reason: undefined,
    });
  });

it("fetchNextPage after the error kept beside older pages: the next page is added and the feed shows success, as in TanStack", async () => {
  useFakeClock();
  const { c, feed } = await olderPagesUnderError(1);
  expect(feed.last()).toMatchObject({ status: "error", pages: "0@2", error: 500 });
  const calls = c.host.calls.length;
  act(() => feed.q.fetchNextPage());
  await advance(50);
  expect(c.host.calls).toHaveLength(calls + 1);
  await act(async () => c.host.calls.at(-1)!.respond(200, body(1, 2, 1)));
  await advance(50);
  expect(feed.last()).toEqual({
    status: "success",
    fetchStatus: "idle",
    pages: "0@2 1@2",
    error: undefined,
    failures: 0,
    reason: undefined,
  });
});
