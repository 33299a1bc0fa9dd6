// @vitest-environment jsdom
/**
 * A feed on useInfiniteQuery, shown in two tabs of one browser (linked docs, one lock manager),
 * each page a GET to a real HTTP server on 127.0.0.1 that counts what it is sent. Each page is
 * one request across the tabs (sharedInfiniteQueryOptions), where plain useInfiniteQuery in each
 * tab sends every page once per tab; refetch() and invalidateQueries ask every page anew, as
 * TanStack does, also within the staleTime.
 */
import { useInfiniteQuery, type InfiniteData } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { describe, expect, expectTypeOf, it } from "vitest";
import { sharedInfiniteQueryOptions, SharedFetchError } from "../../src/index.ts";
import { click, feedPanes, serveFeed, type Page, until } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { pause as wait, text, twoTabs } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 3 });
const { seen, count } = server;
const { feed, renderTabs } = feedPanes(server);

describe("sharedInfiniteQueryOptions: each page of a feed is one request across tabs (useInfiniteQuery)", () => {
  it("two tabs mount the feed and both load the next page at once: one request per page, where plain useInfiniteQuery sends each page per tab", async () => {
    const [a, b] = twoTabs();
    server.held = [];
    renderTabs(a, b);
    await until(() => expect(seen.length).toBeGreaterThanOrEqual(3));
    await wait(100); // a second request of the first page would have left by now
    server.release();
    server.held = null;
    await until(() => expect(["a", "b", "plain a", "plain b"].map(text)).toEqual(Array(4).fill("0@1 idle")));
    server.held = [];
    await click("more", "a", "b", "plain a", "plain b");
    await until(() => expect(seen.length).toBeGreaterThanOrEqual(6));
    await wait(100);
    server.release();
    server.held = null;
    await until(() => expect(["a", "b", "plain a", "plain b"].map(text)).toEqual(Array(4).fill("0@1 1@1 idle")));
    expect([count("/feed?cursor=0"), count("/feed?cursor=1")]).toEqual([1, 1]);
    expect([count("/plain?cursor=0"), count("/plain?cursor=1")]).toEqual([2, 2]);
  });

  it("fetchNextPage in a tab after the other loaded that page within the staleTime: no request (the recorded page answers)", async () => {
    const [a, b] = twoTabs();
    renderTabs(a, b);
    await until(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more", "a");
    await until(() => expect(text("a")).toBe("0@1 1@1 idle"));
    await click("more", "b");
    await until(() => expect(text("b")).toBe("0@1 1@1 idle"));
    expect(count("/feed?cursor=1")).toBe(1);
  });

  it("refetch() within the staleTime refetches every page, as plain useInfiniteQuery does; the other tab shows them, and its next mount within the staleTime takes them", async () => {
    const [a, b] = twoTabs();
    renderTabs(a, b);
    await until(() => expect([text("a"), text("plain a")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more", "a", "plain a");
    await until(() => expect([text("a"), text("plain a")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]));
    server.version = 2;
    const before = [count("/feed?cursor=0"), count("/feed?cursor=1"), count("/plain?cursor=0"), count("/plain?cursor=1")];
    await click("refresh", "a", "plain a");
    await until(() => expect([text("a"), text("plain a")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    const after = [count("/feed?cursor=0"), count("/feed?cursor=1"), count("/plain?cursor=0"), count("/plain?cursor=1")];
    expect(after.map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1]);
    // Tab b showed page 0 alone: a's newer page 0 reached it as it was recorded.
    await until(() => expect(text("b")).toBe("0@2 idle"));
    cleanup();
    renderTabs(a, b);
    // Mounted anew, it shows the chain a recorded, within the staleTime.
    await until(() => expect(text("b")).toBe("0@2 1@2 idle"));
    expect([count("/feed?cursor=0"), count("/feed?cursor=1")]).toEqual([before[0]! + 1, before[1]! + 1]);
  });

  it("invalidateQueries refetches every page within the staleTime; maxPages keeps and refetches only the last pages", async () => {
    const [a, b] = twoTabs();
    const [clientA] = renderTabs(a, b, { maxPages: 2 });
    await until(() => expect(text("a")).toBe("0@1 idle"));
    await click("more", "a");
    await until(() => expect(text("a")).toBe("0@1 1@1 idle"));
    await click("more", "a");
    await until(() => expect(text("a")).toBe("1@1 2@1 idle"));
    server.version = 2;
    const before = seen.length;
    await act(() => clientA.invalidateQueries({ queryKey: feed(a).queryKey }));
    await until(() => expect(text("a")).toBe("1@2 2@2 idle"));
    expect(seen.slice(before).filter((url) => url.startsWith("/feed"))).toEqual(["/feed?cursor=1", "/feed?cursor=2"]);
  });

  it("infers the page and pageParam types; select shapes the data; a page's bad URL is the query's SharedFetchError", async () => {
    const [a] = twoTabs();
    const options = feed(a);
    expectTypeOf(options.initialPageParam).toEqualTypeOf<number>();
    expectTypeOf(options.queryFn!).parameter(0).toHaveProperty("pageParam").toEqualTypeOf<number>();
    function Selected() {
      const q = useInfiniteQuery({ ...options, select: (data: InfiniteData<Page, number>) => data.pages.flatMap((p) => p.items) });
      expectTypeOf(q.data).toEqualTypeOf<string[] | undefined>();
      return <span data-testid="selected">{q.data?.join(",") ?? q.status}</span>;
    }
    function Broken() {
      const q = useInfiniteQuery(
        sharedInfiniteQueryOptions(a, (cursor: number) => (cursor === 0 ? server.page(0) : "http://"), {
          initialPageParam: 0,
          getNextPageParam: (last: Page) => last.next,
          retry: false,
        }),
      );
      if (q.data && q.hasNextPage && !q.isFetching && !q.error) void q.fetchNextPage();
      expectTypeOf(q.error).toEqualTypeOf<SharedFetchError | null>();
      return <span data-testid="broken">{q.error ? q.error.message : q.status}</span>;
    }
    render(
      app(
        a,
        <>
          <Selected />
          <Broken />
        </>,
      ),
    );
    await until(() => expect(text("selected")).toBe("item 0"));
    await until(() => expect(text("broken")).toMatch(/http:\/\/.*(URL|url)/));
  });
});
