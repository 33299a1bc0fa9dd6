// @vitest-environment jsdom
/**
 * Invariants 4 and 8 as TanStack's own hooks show them: another tab holds the request to a host
 * that never answers; this tab mounts the same query with useQuery, useQueries, useSuspenseQuery,
 * useInfiniteQuery (its first page) or useSharedFetch. It shows pending and fetching (the suspense
 * one stays suspended), `isFetchingAnywhere` true, for as long as the claim stands, with no
 * request of its own; the claimant crashes, this tab takes the request over after the lease and
 * shows its answer. No render in between is "done" with no data (success, error, or idle).
 */
import { QueryClient, useInfiniteQuery, useQueries, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { Suspense } from "react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, sharedQueryOptions, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { background, cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

type Shown = { status: string; fetchStatus: string; data: unknown; anywhere?: boolean };
const done = (s: Shown) => s.data === undefined && (s.status !== "pending" || s.fetchStatus === "idle");
type Pane = (props: { store: SharedFetchStoreWithExtras; shown: Shown[] }) => null;

const FEED_PAGE = `${URL_A}?page=0`;
function Suspended({ store, shown }: { store: SharedFetchStoreWithExtras; shown: Shown[] }) {
  const q = useSuspenseQuery(sharedQueryOptions(store, URL_A));
  shown.push({ status: q.status, fetchStatus: q.fetchStatus, data: q.data });
  return null;
}
const panes: [string, string, Pane][] = [
  [
    "useQuery",
    URL_A,
    ({ store, shown }) => {
      const q = useQuery(sharedQueryOptions(store, URL_A));
      shown.push({ status: q.status, fetchStatus: q.fetchStatus, data: q.data });
      return null;
    },
  ],
  [
    "useQueries",
    URL_A,
    ({ store, shown }) => {
      const [q] = useQueries({ queries: [sharedQueryOptions(store, URL_A)] });
      shown.push({ status: q!.status, fetchStatus: q!.fetchStatus, data: q!.data });
      return null;
    },
  ],
  [
    "useInfiniteQuery",
    FEED_PAGE,
    ({ store, shown }) => {
      const feed = sharedInfiniteQueryOptions(store, (page: number) => `${URL_A}?page=${page}`, {
        initialPageParam: 0,
        getNextPageParam: (_last: unknown) => null,
      });
      const q = useInfiniteQuery(feed);
      shown.push({ status: q.status, fetchStatus: q.fetchStatus, data: q.data?.pages[0] });
      return null;
    },
  ],
  [
    "useSharedFetch",
    URL_A,
    ({ shown }) => {
      const q = useSharedFetch(URL_A);
      shown.push({ status: q.status, fetchStatus: q.fetchStatus, data: q.data, anywhere: q.isFetchingAnywhere });
      return null;
    },
  ],
];

for (const [hook, url, Pane] of panes)
  it(`${hook}: pending and fetching while another tab's request hangs, through 5 leases; the claimant crashes and this tab takes over and shows the answer`, async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0, leaseMs: 1_000 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    c.host.auto = () => undefined;
    background(a.ensure({ url }));
    await advance(10);
    const shown: Shown[] = [];
    render(app(b, <Pane store={b} shown={shown} />, new QueryClient()));
    await advance(5_000);
    expect(c.host.calls).toHaveLength(1);
    expect(shown.at(-1)).toMatchObject({ status: "pending", fetchStatus: "fetching" });
    if (hook === "useSharedFetch") expect(shown.at(-1)!.anywhere).toBe(true);
    c.crash(a);
    await advance(1_500);
    expect(c.host.calls).toHaveLength(2);
    await act(async () => c.host.calls[1]!.respond(200, { n: 1 }));
    await advance(10);
    expect(shown.at(-1)).toMatchObject({ status: "success", data: { n: 1 } });
    expect(shown.filter(done)).toEqual([]);
  });

it("useSuspenseQuery: suspended while another tab's request hangs, through 5 leases (never rendered with undefined data); after the claimant's crash it renders the takeover's answer", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 0, leaseMs: 1_000 });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  c.host.auto = () => undefined;
  background(a.ensure({ url: URL_A }));
  await advance(10);
  const shown: Shown[] = [];
  render(
    app(
      b,
      <Suspense fallback={null}>
        <Suspended store={b} shown={shown} />
      </Suspense>,
      new QueryClient(),
    ),
  );
  await advance(5_000);
  expect(c.host.calls).toHaveLength(1);
  expect(shown).toEqual([]);
  c.crash(a);
  await advance(1_500);
  expect(c.host.calls).toHaveLength(2);
  await act(async () => c.host.calls[1]!.respond(200, { n: 1 }));
  await advance(10);
  expect(shown).toEqual([{ status: "success", fetchStatus: "idle", data: { n: 1 } }]);
});
