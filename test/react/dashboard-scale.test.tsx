// @vitest-environment jsdom
/**
 * A dashboard of many shared queries (useQueries over N sharedQueryOptions): what one query costs
 * must not grow with the number of queries on the page. TanStack's QueryCache.find hashes the key
 * of every query in the cache to compare it; each shared query function looked its query up that
 * way, so invalidating N queries scanned the cache N times (N² key hashes); so did each page of a
 * shared infinite query (sharedInfiniteQueryOptions), whose page behavior is TanStack's. And each request kept
 * past cancelQueries had a cache listener of its own, so every later event of a page that cancelled
 * N queries called N listeners.
 */
import { QueryClient, useInfiniteQuery, useQueries, type QueryCache } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

const url = (i: number) => `https://api.example.test/dashboard/${i}`;

function Dashboard({ store, n }: { store: SharedFetchStoreWithExtras; n: number }) {
  useQueries({ queries: Array.from({ length: n }, (_, i) => sharedQueryOptions(store, url(i))) });
  return null;
}

/** A dashboard of `n` shared queries in one tab, all shown; `answer: false` leaves the host hung. */
async function dashboard(n: number, answer = true) {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  c.host.auto = answer ? (call) => ({ status: 200, body: { url: call.url, n: call.n } }) : () => undefined;
  const client = new QueryClient();
  render(app(store, <Dashboard store={store} n={n} />, client));
  await waitFor(() => expect(c.host.calls).toHaveLength(n));
  // Bound before any spy: the test's own looks are not counted as the page's scans.
  const queries = client.getQueryCache().getAll.bind(client.getQueryCache());
  if (answer)
    await waitFor(() => expect(queries().every((q) => q.state.status === "success" && q.state.fetchStatus === "idle")).toBe(true));
  return { c, client, cache: client.getQueryCache(), queries };
}

function Feed({ store, i }: { store: SharedFetchStoreWithExtras; i: number }) {
  useInfiniteQuery(
    sharedInfiniteQueryOptions(store, (page: number) => `${url(i)}?page=${page}`, { initialPageParam: 0, getNextPageParam: () => null }),
  );
  return null;
}

/** A page of `n` shared infinite queries (one page each), all shown and answered. */
async function feeds(n: number) {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  c.host.auto = (call) => ({ status: 200, body: { url: call.url, n: call.n } });
  const client = new QueryClient();
  render(
    app(
      store,
      Array.from({ length: n }, (_, i) => <Feed key={i} store={store} i={i} />),
      client,
    ),
  );
  await waitFor(() => expect(c.host.calls).toHaveLength(n));
  const queries = client.getQueryCache().getAll.bind(client.getQueryCache());
  await waitFor(() => expect(queries().every((q) => q.state.status === "success" && q.state.fetchStatus === "idle")).toBe(true));
  return { c, client, cache: client.getQueryCache(), queries };
}

/** Query cache scans by one invalidateQueries() of a page of 10, then of 100, each refetched in full. */
async function scansOnInvalidate(page: typeof feeds): Promise<number[]> {
  const scans: number[] = [];
  for (const n of [10, 100]) {
    const { c, client, cache, queries } = await page(n);
    const getAll = vi.spyOn(cache, "getAll");
    await act(() => client.invalidateQueries());
    await waitFor(() => expect(c.host.calls).toHaveLength(2 * n));
    await waitFor(() => expect(queries().every((q) => q.state.fetchStatus === "idle" && !q.state.isInvalidated)).toBe(true));
    scans.push(getAll.mock.calls.length);
    cleanup();
    c.destroy();
  }
  return scans;
}

/** The cache's listeners that subscribe from now on and are still subscribed. */
function liveListeners(cache: QueryCache): () => number {
  let live = 0;
  const subscribe = cache.subscribe.bind(cache);
  vi.spyOn(cache, "subscribe").mockImplementation((listener) => {
    live++;
    const off = subscribe(listener);
    return () => {
      live--;
      off();
    };
  });
  return () => live;
}

describe("a dashboard of N shared queries: work per query, not per query squared", () => {
  it("invalidateQueries() of the whole dashboard scans the query cache as often for 100 queries as for 10 (each query function finds its own query without a scan)", async () => {
    // TanStack's own: invalidateQueries finds the queries to invalidate, then those to refetch.
    expect(await scansOnInvalidate(dashboard)).toEqual([2, 2]);
  });

  it("invalidateQueries() of a page of shared infinite queries scans the query cache as often for 100 feeds as for 10 (each page's function finds its feed without a scan)", async () => {
    // TanStack's own: invalidateQueries finds the queries to invalidate, then those to refetch.
    expect(await scansOnInvalidate(feeds)).toEqual([2, 2]);
  });

  it("cancelQueries() with 100 requests in flight: the requests kept for the panes add one cache listener in all, and it goes once they end", async () => {
    const { c, client, cache } = await dashboard(100, false);
    const live = liveListeners(cache);
    await act(() => client.cancelQueries());
    // Every request goes on (kept for the panes that still show its query), none aborted.
    await act(() => new Promise((r) => setTimeout(r, 10)));
    expect(c.host.calls.filter((call) => call.aborted)).toHaveLength(0);
    expect(live()).toBe(1);
    for (const call of c.host.calls) call.respond(200, { url: call.url });
    await waitFor(() => expect(live()).toBe(0));
  });
});
