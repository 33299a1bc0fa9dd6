/**
 * README, "Infinite queries": the client's `fetchInfiniteQuery`, `prefetchInfiniteQuery` and
 * `ensureInfiniteQueryData` with `sharedInfiniteQueryOptions` start from the chain of pages any
 * tab recorded, as a mount does (the recorded pages are the feed's initial data): on a tab whose
 * cache is empty they give every recorded page within the `staleTime`, with no request, where plain
 * TanStack fetches `pages` pages (one by default). Two tabs of one browser (linked docs, one lock
 * manager), each page a GET to a real HTTP server on 127.0.0.1 that counts what it is sent.
 */
import { QueryClient, type InfiniteData } from "@tanstack/react-query";
import { expect, it } from "vitest";
import { feedPanes, serveFeed, type Page } from "../harness/infinite-feed.tsx";
import { twoTabs } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 3 });
const { seen } = server;
const { feed } = feedPanes(server);
const cursors = (data: InfiniteData<unknown> | undefined) => (data?.pages as Page[] | undefined)?.map((p) => p.cursor);

it("fetchInfiniteQuery, prefetchInfiniteQuery and ensureInfiniteQueryData on an empty cache give the pages another tab recorded, with no request", async () => {
  const [a, b] = twoTabs();
  seen.length = 0;
  const recorded = await new QueryClient().fetchInfiniteQuery({ ...feed(a), pages: 2 });
  expect(cursors(recorded)).toEqual([0, 1]);
  expect(seen).toHaveLength(2);

  expect(cursors(await new QueryClient().fetchInfiniteQuery(feed(b)))).toEqual([0, 1]);
  const prefetching = new QueryClient();
  await prefetching.prefetchInfiniteQuery(feed(b));
  expect(cursors(prefetching.getQueryData(feed(b).queryKey))).toEqual([0, 1]);
  expect(cursors(await new QueryClient().ensureInfiniteQueryData(feed(b)))).toEqual([0, 1]);
  expect(seen).toHaveLength(2);
});
