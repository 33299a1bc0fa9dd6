// @vitest-environment jsdom
/**
 * An infinite query stays fresh across tabs: a feed shown in two tabs of one browser (linked docs,
 * one lock manager), each page a GET to a real HTTP server on 127.0.0.1 that counts what it is
 * sent. Another tab's newer pages reach an observed feed as they are recorded, whole (every shown
 * page newer and the chain of pageParams unbroken), with no request of its own; a reload shows the
 * recorded chain of pages before its first fetch, as a persister's restore would.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { click, feedPanes, serveFeed, type Page, until } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { browserTabs as tabs, pause as wait, text } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 3 });
const { seen, page } = server;
const { Feed, PlainFeed } = feedPanes(server, { retry: false });
const feedRequests = () => seen.filter((url) => url.startsWith("/feed")).length;

/** Tabs a and b both show pages 0 and 1 (b's page 1 taken from a's record), plain feeds beside them. */
async function bothShowTwoPages(a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras) {
  render(
    <>
      {app(a, <Feed store={a} name="a" />, new QueryClient())}
      {app(
        b,
        <>
          <Feed store={b} name="b" />
          <PlainFeed name="plain b" />
        </>,
        new QueryClient(),
      )}
    </>,
  );
  await until(() => expect([text("a"), text("b"), text("plain b")]).toEqual(["0@1 idle", "0@1 idle", "0@1 idle"]));
  await click("more", "a");
  await until(() => expect(text("a")).toBe("0@1 1@1 idle"));
  await click("more", "b");
  await until(() => expect(text("b")).toBe("0@1 1@1 idle"));
  expect(feedRequests()).toBe(2);
}

describe("an infinite query shows another tab's newer pages as they are recorded", () => {
  it("a refetch() in one tab: the other tab's feed shows the newer pages at once, with no request of its own; plain useInfiniteQuery keeps the old ones", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    server.version = 2;
    await click("refresh", "a");
    await until(() => expect(text("b")).toBe("0@2 1@2 idle"));
    expect(text("a")).toBe("0@2 1@2 idle");
    await wait(50);
    expect(feedRequests()).toBe(4);
    expect(text("plain b")).toBe("0@1 idle");
  });

  it("never a mix of two refreshes: while the other tab has recorded only the first page anew, the old pages stay", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    server.version = 2;
    server.held = [];
    await click("refresh", "a");
    await until(() => expect(server.held!.length).toBe(1));
    server.release();
    await until(() => expect(server.held!.length).toBe(1)); // page 0 recorded, page 1 asked
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    server.release();
    server.held = null;
    await until(() => expect(text("b")).toBe("0@2 1@2 idle"));
    expect(feedRequests()).toBe(4);
  });

  it("an error recorded for a page is never put over its data: the other tab's failed refresh leaves the shown pages, with no error", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    server.version = 2;
    server.failOnce.add("/feed?cursor=1");
    await click("refresh", "a");
    await until(() => expect(text("a")).toMatch(/error$/));
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    expect(feedRequests()).toBe(4);
  });

  it("newer pages whose chain of pageParams broke (page 0 now links to page 2) are not put, nor a page 0 newer than the page 1 after it (two refreshes); a refresh's unbroken chain is", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    server.version = 2;
    server.skipFrom = 2;
    await act(async () => {
      await a.refetch({ url: page(0) });
      await a.refetch({ url: page(1) });
    });
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    server.skipFrom = Infinity;
    server.version = 3;
    await act(() => a.refetch({ url: page(0) }));
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    await act(() => a.refetch({ url: page(1) }));
    await until(() => expect(text("b")).toBe("0@3 1@3 idle"));
    expect(feedRequests()).toBe(6);
  });
  it("maxPages: a feed showing its last pages takes them from the other tab's refresh of more pages, when each of them is newer", async () => {
    const { a, b } = tabs();
    render(
      <>
        {app(a, <Feed store={a} name="a" />, new QueryClient())}
        {app(b, <Feed store={b} name="b" maxPages={2} />, new QueryClient())}
      </>,
    );
    await until(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    for (const step of ["0@1 1@1 idle", "0@1 1@1 2@1 idle"]) {
      await click("more", "a");
      await until(() => expect(text("a")).toBe(step));
    }
    await click("more", "b");
    await until(() => expect(text("b")).toBe("0@1 1@1 idle"));
    await click("more", "b");
    await until(() => expect(text("b")).toBe("1@1 2@1 idle"));
    server.version = 2;
    await click("refresh", "a");
    await until(() => expect(text("b")).toBe("1@2 2@2 idle"));
    expect(text("a")).toBe("0@2 1@2 2@2 idle");
    await wait(50);
    expect(feedRequests()).toBe(6);
  });

  it("the app's own setQueryData of the feed (an optimistic update) is kept over pages recorded before it, though of newer revisions", async () => {
    const { a, b } = tabs();
    const clientB = new QueryClient();
    const paneB = () => app(b, <Feed store={b} name="b" />, clientB);
    render(app(a, <Feed store={a} name="a" />, new QueryClient()));
    const shownB = render(paneB());
    await until(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    shownB.unmount();
    server.version = 2;
    await click("refresh", "a");
    await until(() => expect(text("a")).toBe("0@2 idle"));
    await wait(10);
    const key = clientB.getQueryCache().getAll()[0]!.queryKey;
    act(() =>
      clientB.setQueryData(key, (old: { pages: Page[]; pageParams: number[] }) => ({ ...old, pages: [{ ...old.pages[0]!, v: 9 }] })),
    );
    render(paneB());
    await wait(50);
    expect(text("b")).toBe("0@9 idle");
    expect(feedRequests()).toBe(2);
  });
});

describe("a reload shows the recorded chain of pages before its first fetch", () => {
  it("within the staleTime: every recorded page of the chain shows at the first render, and nothing is sent", async () => {
    const { a, b, join } = tabs();
    await bothShowTwoPages(a, b);
    await click("more", "a");
    await until(() => expect(text("a")).toBe("0@1 1@1 2@1 idle"));
    cleanup();
    const reloaded = join("c", a);
    render(app(reloaded, <Feed store={reloaded} name="c" />));
    expect(text("c")).toBe("0@1 1@1 2@1 idle");
    await wait(50);
    expect(feedRequests()).toBe(3);
    cleanup();
    const capped = join("d", a);
    render(app(capped, <Feed store={capped} name="d" maxPages={2} />));
    expect(text("d")).toBe("0@1 1@1 idle");
  });

  it("stale: the recorded pages show, then each is refetched once (as a persister's restore), with no other request", async () => {
    const { a, b, join } = tabs();
    await bothShowTwoPages(a, b);
    cleanup();
    server.version = 2;
    const reloaded = join("c", a);
    render(app(reloaded, <Feed store={reloaded} name="c" staleTime={0} />));
    expect(text("c")).toBe("0@1 1@1 fetching");
    await until(() => expect(text("c")).toBe("0@2 1@2 idle"));
    await wait(50);
    expect(seen.filter((url) => url.startsWith("/feed")).slice(2)).toEqual(["/feed?cursor=0", "/feed?cursor=1"]);
  });
});
