// @vitest-environment jsdom
/**
 * A SharedWorker tab reloaded on a feed of several pages: the tab has no doc of its own, so its
 * first render reads pending (a per-tab replica shows the recorded chain then:
 * test/react/infinite-query-live.test.tsx), and the first page's answer comes from the worker's
 * record. TanStack's first fetch of a query with no data asks for one page; before, the tab showed
 * that page alone, where the worker held the chain the tab showed before the reload.
 */
import { QueryCache, QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import type { Host } from "../../sim/host.ts";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { click, feedPanes, pagesText, serveFeed, type Page, until } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { pause, text } from "../harness/side-by-side.tsx";
import { shownSince } from "../../src/react/push.ts";
import { browser } from "./browser-sim.ts";

const server = serveFeed({ last: 2 });
const feeds = feedPanes(server, { staleTime: 30_000 });
afterEach(() => void vi.useRealTimers());

/**
 * A browser whose worker fetches from the feed's server; its first tab loads every page, then
 * reloads. `laterPagesAfterMs`: the wall clock moves on that much after the first page (faked Date).
 */
async function reloadAfterThreePages(laterPagesAfterMs = 0) {
  if (laterPagesAfterMs) vi.useFakeTimers({ toFake: ["Date"] });
  const b = browser({ fetch: (input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init) } as unknown as Host);
  const first = b.tab() as unknown as SharedFetchStoreWithExtras;
  const view = render(app(first, <feeds.Feed store={first} name="a" />));
  for (const shown of ["0@1", "0@1 1@1", "0@1 1@1 2@1"]) {
    await until(() => expect(text("a")).toBe(`${shown} idle`));
    if (shown === "0@1" && laterPagesAfterMs) vi.setSystemTime(Date.now() + laterPagesAfterMs);
    if (shown !== "0@1 1@1 2@1") await click("more", "a");
  }
  view.unmount();
  first.destroy();
  return (client?: QueryClient, spread: { maxPages?: number } = {}) => {
    const reload = b.tab() as unknown as SharedFetchStoreWithExtras;
    const log: string[] = [];
    function Pane() {
      const q = useInfiniteQuery({ ...feeds.feed(reload), ...spread });
      const shown = `${pagesText(q)} ${q.fetchStatus}`;
      if (log.at(-1) !== shown) log.push(shown);
      return null;
    }
    render(app(reload, <Pane />, client));
    return log;
  };
}

it("a worker tab reloaded on a chain recorded within the staleTime: pending until the worker answers, then the whole chain, with no request", async () => {
  const reload = await reloadAfterThreePages();
  const log = reload();
  await until(() => expect(log.at(-1)).toBe("0@1 1@1 2@1 idle"));
  await pause(100);
  expect(log).toEqual(["pending fetching", "0@1 1@1 2@1 idle"]);
  expect(server.seen).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=2"]);
});

it("a worker tab reloaded on a stale chain: its mount asks the first page anew and shows it alone (the later pages are not the answer to it)", async () => {
  const reload = await reloadAfterThreePages();
  // Every page stale by the staleTime; only the wall clock moves (requests run on).
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + 60_000);
  server.version = 2;
  const log = reload();
  await until(() => expect(log.at(-1)).toBe("0@2 idle"));
  await pause(100);
  expect(log).toEqual(["pending fetching", "0@2 idle"]);
  expect(server.seen).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=2", "/feed?cursor=0"]);
});

it("the chain is set only over the first page its fetch delivered: the app's own set in the cache's onSuccess stands, never extended by pages after another page", async () => {
  const reload = await reloadAfterThreePages();
  // The app's QueryCache onSuccess sets the feed itself, synchronously, before the chain is set.
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onSuccess: (data, query) => {
        const pages = (data as { pages: Page[] } | undefined)?.pages;
        if (pages?.length === 1 && pages[0]!.cursor === 0)
          client.setQueryData(query.queryKey, { pages: [{ ...pages[0]!, cursor: 2, next: null }], pageParams: [2] });
      },
    }),
  });
  const log = reload(client);
  await until(() => expect(log.at(-1)).toBe("2@1 idle"));
  await pause(100);
  expect(log).toEqual(["pending fetching", "2@1 idle"]);
  expect(server.seen).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=2"]);
});

it("a worker tab reloaded on a stale first page whose later pages are within the staleTime: the first page asked anew, the later pages with it unsent, dated by the oldest, as a per-tab replica's refetch of the chain shows them", async () => {
  // Pages 1 and 2 loaded 20 s after page 0; the reload 15 s later: page 0 is 35 s old, the others 15 s.
  const reload = await reloadAfterThreePages(20_000);
  vi.setSystemTime(Date.now() + 15_000);
  server.version = 2;
  const client = new QueryClient();
  const log = reload(client);
  await until(() => expect(log.at(-1)).toBe("0@2 1@1 2@1 idle"));
  await pause(100);
  expect(log).toEqual(["pending fetching", "0@2 1@1 2@1 idle"]);
  expect(server.seen).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=2", "/feed?cursor=0"]);
  const [query] = client.getQueryCache().getAll();
  // The Date stands still (only it is faked): page 1's record is 15 s old.
  expect(Date.now() - query!.state.dataUpdatedAt).toBe(15_000);
});

it("a worker tab reloaded on a feed whose maxPages is spread over the options: the chain brought with the first page holds maxPages pages, not every page recorded", async () => {
  const reload = await reloadAfterThreePages();
  const log = reload(undefined, { maxPages: 2 });
  await until(() => expect(log.at(-1)).toBe("0@1 1@1 idle"));
  await pause(100);
  expect(log).toEqual(["pending fetching", "0@1 1@1 idle"]);
  expect(server.seen).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=2"]);
});

it("the chain brought with the first page is the store's delivery: its pages are compared with newer records by revision, as data set from outside the store (hydrated) is not", async () => {
  const reload = await reloadAfterThreePages();
  const client = new QueryClient();
  const log = reload(client);
  await until(() => expect(log.at(-1)).toBe("0@1 1@1 2@1 idle"));
  await pause(20);
  const [query] = client.getQueryCache().getAll();
  expect(shownSince(query as never)).toBeUndefined();
});
