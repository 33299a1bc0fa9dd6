// @vitest-environment jsdom
/**
 * cancelQueries on a feed of several pages while a later page's request is in flight (a
 * fetchNextPage, or page 2 of a refetch of 3), in two tabs of one browser (linked docs, one lock
 * manager) against a real HTTP server on 127.0.0.1 that counts what each page is sent and which
 * requests were aborted. As for a single page (infinite-query-cancel-hold.test.tsx) and for
 * sharedQueryOptions, the feed keeps the request of the page it was asking for while it is still
 * observed: the other tab, which joined that page's request, gets its answer and nothing is sent
 * again; plain useInfiniteQuery aborts it (the other tab sent its own anyway).
 */
import { focusManager } from "@tanstack/react-query";
import { act, render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { click, feedPanes, serveFeed, until } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { browserTabs, pause as wait, text, twoTabs } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 2 });
const { seen, aborted, count, release } = server;
const feeds = feedPanes(server, { staleTime: 30_000 });
afterEach(() => {
  vi.useRealTimers();
  focusManager.setFocused(undefined);
});

const renderTabs = () => feeds.renderTabs(...twoTabs());
const all = () => ["a", "b", "plain a", "plain b"].map(text);

it("cancelQueries during a fetchNextPage that the other tab joined: the page's one request goes on and reaches that tab; plain useInfiniteQuery aborts it and each tab sends its own", async () => {
  const [clientA] = renderTabs();
  await until(() => expect(all()).toEqual(Array(4).fill("0@1 idle")));
  server.held = [];
  await click("more", "a", "plain a");
  await until(() => expect(seen).toEqual(expect.arrayContaining(["/feed?cursor=1", "/plain?cursor=1"])));
  await click("more", "b", "plain b");
  await until(() => expect(count("/plain?cursor=1")).toBe(2));
  await wait(100); // a second request of page 1 from tab b would have left by now
  expect(count("/feed?cursor=1")).toBe(1);
  await act(() => clientA.cancelQueries());
  await wait(100);
  expect(aborted).toEqual(["/plain?cursor=1"]);
  release();
  server.held = null;
  await until(() => expect(all()).toEqual(["0@1 idle", "0@1 1@1 idle", "0@1 idle", "0@1 1@1 idle"]));
  expect([count("/feed?cursor=1"), count("/plain?cursor=1")]).toEqual([1, 2]);
  expect(aborted).toEqual(["/plain?cursor=1"]);
  // Tab a, reverted as TanStack reverts, takes the recorded page at its next fetchNextPage.
  await click("more", "a");
  await until(() => expect(text("a")).toBe("0@1 1@1 idle"));
  expect(count("/feed?cursor=1")).toBe(1);
});

it.each([
  ["the other tab joined its request", true],
  ["its request kept alone", false],
])(
  "a tab that cancelled its fetchNextPage (%s) shows what a third tab of the feed shows once the page is recorded: its own pages, as TanStack reverts them, and the recorded page, unsent, at its next fetchNextPage",
  async (_, joined) => {
    const { a, b, join } = browserTabs();
    const c = join("c");
    const [clientA] = feeds.renderTabs(a, b);
    render(app(c, <feeds.Feed store={c} name="c" />));
    await until(() => expect(["a", "b", "c"].map(text)).toEqual(Array(3).fill("0@1 idle")));
    server.held = [];
    await click("more", "a");
    await until(() => expect(seen).toContain("/feed?cursor=1"));
    if (joined) await click("more", "b");
    await wait(100); // a second request of page 1 from tab b would have left by now
    await act(() => clientA.cancelQueries());
    release();
    server.held = null;
    await until(() => expect(a.snapshot({ url: server.page(1) }).status).toBe("success"));
    if (joined) await until(() => expect(text("b")).toBe("0@1 1@1 idle"));
    await wait(100); // a push of the recorded page to a or c would have come by now
    // A page is added by the tab's own fetchNextPage, in every tab of the feed alike.
    expect(["a", "c"].map(text)).toEqual(["0@1 idle", "0@1 idle"]);
    await click("more", "a", "c");
    await until(() => expect(["a", "c"].map(text)).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]));
    expect(count("/feed?cursor=1")).toBe(1);
    expect(aborted).toEqual([]);
  },
);

it("cancelQueries during page 3 of a refetch of 3 that the other tab's focus refetch joined: one request per page, that tab gets page 3, and the cancelled tab shows the newer chain once recorded; plain useInfiniteQuery aborts page 3 and keeps the older pages", async () => {
  const [clientA] = renderTabs();
  await until(() => expect(all()).toEqual(Array(4).fill("0@1 idle")));
  for (const shown of ["0@1 1@1 idle", "0@1 1@1 2@1 idle"]) {
    await click("more", "a", "plain a");
    await until(() => expect([text("a"), text("plain a")]).toEqual([shown, shown]));
    await click("more", "b", "plain b");
    await until(() => expect([text("b"), text("plain b")]).toEqual([shown, shown]));
  }
  expect([0, 1, 2].map((n) => count(`/feed?cursor=${n}`))).toEqual([1, 1, 1]);
  seen.length = 0;
  // Every page stale by the staleTime; only the wall clock moves (leases and requests run on).
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 60_000);
  server.version = 2;
  server.held = [];
  await click("refresh", "a", "plain a");
  await until(() => expect(seen).toEqual(expect.arrayContaining(["/feed?cursor=0", "/plain?cursor=0"])));
  release();
  await until(() => expect(seen).toEqual(expect.arrayContaining(["/feed?cursor=1", "/plain?cursor=1"])));
  // Tab b's focus refetch takes page 0 as recorded now and joins the requests of pages 1 and 2.
  act(() => {
    focusManager.setFocused(false);
    focusManager.setFocused(true);
  });
  await until(() => expect(count("/plain?cursor=0")).toBe(2));
  release();
  await until(() => expect(seen).toEqual(expect.arrayContaining(["/feed?cursor=2", "/plain?cursor=2"])));
  await wait(100); // a second request of page 2 from tab b would have left by now
  expect([0, 1, 2].map((n) => count(`/feed?cursor=${n}`))).toEqual([1, 1, 1]);
  await act(() => clientA.cancelQueries());
  await wait(100);
  expect(aborted).toEqual(["/plain?cursor=2"]);
  expect([text("a"), text("plain a")]).toEqual(["0@1 1@1 2@1 idle", "0@1 1@1 2@1 idle"]);
  release();
  server.held = null;
  await until(() => expect(all()).toEqual(["0@2 1@2 2@2 idle", "0@2 1@2 2@2 idle", "0@1 1@1 2@1 idle", "0@2 1@2 2@2 idle"]));
  expect([0, 1, 2].map((n) => count(`/feed?cursor=${n}`))).toEqual([1, 1, 1]);
  expect(aborted).toEqual(["/plain?cursor=2"]);
});
