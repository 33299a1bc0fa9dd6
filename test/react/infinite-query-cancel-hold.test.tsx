// @vitest-environment jsdom
/**
 * TanStack's optimistic update recipe (onMutate: cancelQueries + setQueryData) on a feed whose
 * page request this tab sent and another tab joined. As for sharedQueryOptions
 * (optimistic-update-across-tabs.test.tsx), a cancelQueries on a feed still observed keeps the
 * page's request for the tab that joined it: aborted, that tab took it over and sent it again
 * after the set (a second request), and its answer, read before the mutation, replaced the
 * optimistic pages.
 */
import { QueryClient, useInfiniteQuery, type InfiniteData } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

type Page = { n: number };
const feed = (store: SharedFetchStoreWithExtras) =>
  sharedInfiniteQueryOptions(store, (cursor: number) => `${URL_A}?cursor=${cursor}`, {
    initialPageParam: 0,
    getNextPageParam: (_last: Page) => null,
  });

function Feed({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const q = useInfiniteQuery(feed(store));
  return <span data-testid={name}>{q.data ? q.data.pages.map((p) => p.n).join(" ") : `${q.status} ${q.fetchStatus}`}</span>;
}
const text = (name: string) => screen.getByTestId(name).textContent;

it("cancelQueries + setQueryData on a feed whose page request another tab joined: one request, never aborted; its answer, sent before the set, leaves the optimistic pages shown and reaches the other tab", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => undefined;
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const clientA = new QueryClient();
  render(
    <>
      {app(a, <Feed store={a} name="a" />, clientA)}
      {app(b, <Feed store={b} name="b" />)}
    </>,
  );
  await advance(50);
  expect(c.host.calls).toHaveLength(1);
  expect(b.snapshot({ url: `${URL_A}?cursor=0` }).claim?.mine).toBe(false);
  const { queryKey } = feed(a);
  await act(() => clientA.cancelQueries({ queryKey }));
  act(() => clientA.setQueryData(queryKey, { pages: [{ n: 999 }], pageParams: [0] } as InfiniteData<Page, number>));
  await advance(10_000); // two leases of the store's default
  expect(c.host.calls.map((call) => call.state)).toEqual(["in-flight"]);
  expect([text("a"), text("b")]).toEqual(["999", "pending fetching"]);
  await act(async () => c.host.calls[0]!.respond(200, { n: 1 })); // read before the mutation
  await advance(50);
  expect([text("a"), text("b")]).toEqual(["999", "1"]);
  expect(c.host.calls).toHaveLength(1);
});

it("invariant 11: a feed's page request kept past cancelQueries is aborted at the network once the feed is observed no more", async () => {
  useFakeClock();
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => undefined;
  const [a] = c.stores as [SharedFetchStoreWithExtras];
  const clientA = new QueryClient();
  const view = render(app(a, <Feed store={a} name="a" />, clientA));
  await advance(50);
  await act(() => clientA.cancelQueries());
  await advance(50);
  expect(c.host.calls.map((call) => call.state)).toEqual(["in-flight"]);
  view.unmount();
  await advance(50);
  expect(c.host.calls.map((call) => call.state)).toEqual(["aborted"]);
});
