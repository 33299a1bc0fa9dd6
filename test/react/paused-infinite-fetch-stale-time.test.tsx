// @vitest-environment jsdom
/**
 * The infinite query's side of test/react/paused-fetch-stale-time.test.tsx: a fetch TanStack
 * starts while offline waits, paused, and runs its page function once back online. TanStack
 * decided to fetch when it started (the pages were stale by the staleTime then): a staleTime
 * raised meanwhile does not call it off, and plain useInfiniteQuery sends its request.
 * sharedInfiniteQueryOptions judged the recorded pages by the observers' options of the moment
 * its function ran, took them for fresh and sent nothing.
 */
import { onlineManager, QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { Fragment, useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStore } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, useFakeClock } from "../harness/replicas.ts";

const BASE = "https://api.example.test";
type Page = { n: number };

afterEach(() => {
  cleanup();
  onlineManager.setOnline(true);
  vi.useRealTimers();
});

describe("an infinite query's fetch paused offline runs as TanStack decided it when it started (TanStack's staleTime at the fetch)", () => {
  it("a remount while offline, the staleTime then raised: back online, the shared feed sends its page's request as plain useInfiniteQuery does", async () => {
    useFakeClock();
    const c = cluster(1, { settleMs: 0 });
    const store = c.stores[0]!;
    const counts = new Map<string, number>();
    c.host.auto = (call) => {
      counts.set(call.url, (counts.get(call.url) ?? 0) + 1);
      return { status: 200, body: { n: counts.get(call.url) } };
    };
    const shown: Record<string, number | undefined> = {};
    let set: (v: { gen: number; staleTime: number }) => void = () => {};
    function Panes() {
      const [state, setState] = useState({ gen: 0, staleTime: 0 });
      set = setState;
      return (
        <Fragment key={state.gen}>
          <Shared store={store} staleTime={state.staleTime} />
          <Plain staleTime={state.staleTime} />
        </Fragment>
      );
    }
    const pages = { initialPageParam: 0, getNextPageParam: () => null, retry: false as const };
    function Shared({ store, staleTime }: { store: SharedFetchStore; staleTime: number }) {
      const q = useInfiniteQuery(sharedInfiniteQueryOptions<Page, number>(store, (p) => `${BASE}/s?cursor=${p}`, { ...pages, staleTime }));
      shown.shared = q.data?.pages[0]?.n;
      return null;
    }
    function Plain({ staleTime }: { staleTime: number }) {
      const queryFn = async ({ pageParam }: { pageParam: number }) =>
        (await (await c.host.fetch(`${BASE}/p?cursor=${pageParam}`)).json()) as Page;
      shown.plain = useInfiniteQuery({ queryKey: ["plain"], queryFn, ...pages, staleTime }).data?.pages[0]?.n;
      return null;
    }
    render(app(store, <Panes />, new QueryClient()));
    await advance(100);
    expect(shown).toEqual({ shared: 1, plain: 1 });
    onlineManager.setOnline(false);
    await advance(0);
    set({ gen: 1, staleTime: 0 });
    await advance(100);
    set({ gen: 1, staleTime: Infinity });
    await advance(100);
    onlineManager.setOnline(true);
    await advance(100);
    expect(shown).toEqual({ shared: 2, plain: 2 });
    expect(counts).toEqual(
      new Map([
        [`${BASE}/s?cursor=0`, 2],
        [`${BASE}/p?cursor=0`, 2],
      ]),
    );
  });
});
