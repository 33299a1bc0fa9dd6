// @vitest-environment jsdom
/**
 * README (sharedInfiniteQueryOptions: "A mount, focus, poll, `fetchNextPage` or `fetchPreviousPage`
 * takes a page any replica recorded within the `staleTime`"): a feed opened in the middle
 * (`initialPageParam: 2`, `getPreviousPageParam`) takes the previous page another tab recorded
 * within the staleTime, with no request, and asks for one nobody recorded, once; plain
 * useInfiniteQuery beside it, against the same real HTTP server on 127.0.0.1, sends each.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { expect, it } from "vitest";
import { sharedInfiniteQueryOptions } from "../../src/index.ts";
import { pagesText, serveFeed, type Page, until } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { text, twoTabs } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 3 });
const paging = {
  initialPageParam: 2,
  getNextPageParam: (last: Page) => last.next,
  getPreviousPageParam: (first: Page) => (first.cursor > 0 ? first.cursor - 1 : null),
  staleTime: 60_000,
};

it("fetchPreviousPage takes a page another tab recorded within the staleTime, unsent, where plain useInfiniteQuery sends it", async () => {
  const [a, b] = twoTabs();
  function Panes() {
    const shared = useInfiniteQuery(sharedInfiniteQueryOptions(a, (cursor: number) => server.page(cursor), paging));
    const plain = useInfiniteQuery({
      queryKey: ["plain-feed"],
      queryFn: async ({ pageParam, signal }) =>
        (await (await fetch(`${server.base}/plain?cursor=${pageParam}`, { signal })).json()) as Page,
      ...paging,
    });
    return (
      <>
        <span data-testid="shared">{`${pagesText(shared)} ${shared.fetchStatus}`}</span>
        <span data-testid="plain">{`${pagesText(plain)} ${plain.fetchStatus}`}</span>
        <button onClick={() => void Promise.all([shared.fetchPreviousPage(), plain.fetchPreviousPage()])}>back</button>
      </>
    );
  }
  render(app(a, <Panes />));
  await until(() => expect([text("shared"), text("plain")]).toEqual(["2@1 idle", "2@1 idle"]));
  // Tab b loads page 1 (its own feed, or a query of that page) within the staleTime.
  await b.ensure({ url: server.page(1) });
  server.version = 2;
  const before = server.seen.length;
  await act(() => fireEvent.click(screen.getByText("back")));
  await until(() => expect([text("shared"), text("plain")]).toEqual(["1@1 2@1 idle", "1@2 2@1 idle"]));
  expect(server.seen.slice(before)).toEqual(["/plain?cursor=1"]);
  // Page 0, recorded by nobody: asked once, as plain useInfiniteQuery asks it.
  await act(() => fireEvent.click(screen.getByText("back")));
  await until(() => expect([text("shared"), text("plain")]).toEqual(["0@2 1@1 2@1 idle", "0@2 1@2 2@1 idle"]));
  expect(server.seen.slice(before).sort()).toEqual(["/feed?cursor=0", "/plain?cursor=0", "/plain?cursor=1"]);
});
