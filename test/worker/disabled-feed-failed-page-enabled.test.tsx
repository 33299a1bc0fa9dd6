// @vitest-environment jsdom
/**
 * A disabled feed whose recorded chain ends at a failed page (page 2's newer request failed over
 * its older result) shows the pages before it alone, in a tab of the SharedWorker replica as in a
 * per-tab one. Enabled, it shows what a feed mounted enabled there shows: those pages with that
 * page's error, as a failed fetchNextPage shows it (status "error", failureCount 1), with no
 * request, from the render that enables it (that render showed "success" before, then the error);
 * its next fetchNextPage asks for the page anew. Real ports, the worker's real store and
 * Yjs docs; the simulated host.
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { tabsOfOneBrowser } from "./tabs-of-one-browser.ts";

afterEach(cleanup);
const FEED = "http://127.0.0.1:9/api/disabled-feed-failed-page";
type Page = { cursor: number; next: number | null; v: number };
const page = (cursor: number) => `${FEED}?cursor=${cursor}`;
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

describe.each(Object.keys(tabsOfOneBrowser) as (keyof typeof tabsOfOneBrowser)[])("%s", (kind) => {
  /** Pages 0 to 3; the first tab records them, then page 2 fails over its older result. */
  async function setUp() {
    const tabs = tabsOfOneBrowser[kind]();
    let failing = false;
    tabs.host.auto = (call) => {
      const cursor = Number(new URL(call.url).searchParams.get("cursor"));
      if (failing && cursor === 2) return { status: 500, text: "no" };
      return { status: 200, body: { cursor, next: cursor < 3 ? cursor + 1 : null, v: 1 } satisfies Page, delayMs: 2 };
    };
    for (const cursor of [0, 1, 2, 3]) await tabs.first.ensure({ url: page(cursor) });
    failing = true;
    await tabs.first.refetch({ url: page(2) });
    return tabs;
  }

  /** The second tab's feed, what it shows now, its fetchNextPage, and the switch that enables it. */
  function mount(store: SharedFetchStoreWithExtras, enabled: boolean) {
    const shown: { status: string; pages: string; error?: number; failures: number; more: boolean }[] = [];
    let fetchNextPage = () => {};
    function Feed({ on }: { on: boolean }) {
      const r = useInfiniteQuery(
        sharedInfiniteQueryOptions(store, (cursor: number) => page(cursor), {
          initialPageParam: 0,
          getNextPageParam: (last: Page) => last.next,
          staleTime: 60_000,
          enabled: on,
        }),
      );
      fetchNextPage = () => void r.fetchNextPage();
      shown.push({
        status: r.status,
        pages: r.data?.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") ?? "",
        error: r.error?.status,
        failures: r.failureCount,
        more: r.hasNextPage,
      });
      return null;
    }
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const { rerender } = render(app(store, <Feed on={enabled} />, client));
    let enabledAt = 0;
    return {
      last: () => shown.at(-1),
      /** What it showed at each render from the one that enabled it on. */
      enabled: () => shown.slice(enabledAt),
      enable: () => act(() => ((enabledAt = shown.length), rerender(app(store, <Feed on />, client)))),
      fetchNextPage: () => act(() => fetchNextPage()),
    };
  }

  const failed = { status: "error", pages: "0@1 1@1", error: 500, failures: 1, more: true };

  it("a disabled feed shows the pages before the failed page alone; enabled, it shows them with that page's error from the render that enables it on, as a feed mounted enabled does, with no request", async () => {
    const { host, second } = await setUp();
    const calls = host.calls.length;
    const enabled = mount(second(), true);
    await waitFor(() => expect(enabled.last()).toEqual(failed));
    cleanup();

    const feed = mount(second(), false);
    await waitFor(() => expect(feed.last()).toEqual({ status: "success", pages: "0@1 1@1", failures: 0, more: true }));
    await pause(30);
    expect(feed.last()).toEqual({ status: "success", pages: "0@1 1@1", failures: 0, more: true });

    await feed.enable();
    await waitFor(() => expect(feed.last()).toEqual(failed));
    await pause(30);
    // Each render from the enabling one on, that one included: never "success" before the error.
    expect(feed.enabled()).toEqual(feed.enabled().map(() => failed));
    expect(host.calls.length).toBe(calls);

    feed.fetchNextPage();
    await waitFor(() => expect(host.calls.slice(calls).map((call) => call.url)).toEqual([page(2)]));
  });
});
