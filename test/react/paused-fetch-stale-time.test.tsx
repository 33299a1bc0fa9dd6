// @vitest-environment jsdom
/**
 * A fetch TanStack starts while offline waits, paused, and runs its query function once back
 * online. TanStack decided to fetch when it started (the data was stale by the staleTime then):
 * a staleTime raised meanwhile does not call it off, and a plain useQuery or useInfiniteQuery
 * sends its request. The shared query, and sharedInfiniteQueryOptions, judged the recorded result
 * by the observers' options of the moment its function ran, took it for fresh and sent nothing; a
 * feed's prefetchInfiniteQuery, by the query's options of that moment (an observer's since), where
 * TanStack runs the fetch with the options it began with.
 * Found by test/react/parity-random.test.tsx.
 */
import { onlineManager, QueryClient, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { Fragment, useEffect, useState, type FC } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, useSharedFetch, type SharedFetchStore } from "../../src/index.ts";
import type { Host } from "../../sim/host.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, useFakeClock } from "../harness/replicas.ts";

const BASE = "https://api.example.test";
type Body = { n: number };
type Pane = FC<{ staleTime: number }>;
type Shown = Record<"shared" | "plain", number | undefined>;
type Sent = { before: Shown; after: Shown; counts: Map<string, number> };

beforeEach(useFakeClock);
afterEach(() => {
  cleanup();
  onlineManager.setOnline(true);
  vi.useRealTimers();
});

/**
 * Both panes shown, then remounted while offline on stale data (a fetch starts, paused), their
 * staleTime raised to Infinity, and back online. `panes` makes the shared and the plain pane on
 * the store and host given, writing what each shows into `shown`. Returns it and the requests per URL.
 */
async function remountOfflineThenRaiseStaleTime(
  panes: (store: SharedFetchStore, host: Host, shown: Shown) => { Shared: Pane; Plain: Pane },
): Promise<Sent> {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  const counts = new Map<string, number>();
  c.host.auto = (call) => {
    counts.set(call.url, (counts.get(call.url) ?? 0) + 1);
    return { status: 200, body: { n: counts.get(call.url) } };
  };
  const shown: Shown = { shared: undefined, plain: undefined };
  const { Shared, Plain } = panes(store, c.host, shown);
  let set: (v: { gen: number; staleTime: number }) => void = () => {};
  function Panes() {
    const [state, setState] = useState({ gen: 0, staleTime: 0 });
    set = setState;
    return (
      <Fragment key={state.gen}>
        <Shared staleTime={state.staleTime} />
        <Plain staleTime={state.staleTime} />
      </Fragment>
    );
  }
  render(app(store, <Panes />, new QueryClient()));
  await advance(100);
  const before = { ...shown };
  onlineManager.setOnline(false);
  await advance(0);
  set({ gen: 1, staleTime: 0 });
  await advance(100);
  set({ gen: 1, staleTime: Infinity });
  await advance(100);
  onlineManager.setOnline(true);
  await advance(100);
  return { before, after: { ...shown }, counts };
}

/** Each pane showed the first answer, then the second: the shared and the plain request each sent twice. */
function expectSentAgain({ before, after, counts }: Sent, shared: string, plain: string): void {
  expect(before).toEqual({ shared: 1, plain: 1 });
  expect(after).toEqual({ shared: 2, plain: 2 });
  expect(counts).toEqual(
    new Map([
      [shared, 2],
      [plain, 2],
    ]),
  );
}

describe("a fetch paused offline runs as TanStack decided it when it started (TanStack's staleTime at the fetch)", () => {
  it("a remount while offline, the staleTime then raised: back online, the shared query sends its request as plain useQuery does", async () => {
    const sent = await remountOfflineThenRaiseStaleTime((_store, host, shown) => ({
      Shared: ({ staleTime }) => {
        shown.shared = useSharedFetch<Body>(`${BASE}/s`, { staleTime, retry: false }).data?.n;
        return null;
      },
      Plain: ({ staleTime }) => {
        const queryFn = async () => (await (await host.fetch(`${BASE}/p`)).json()) as Body;
        shown.plain = useQuery({ queryKey: ["plain"], queryFn, staleTime, retry: false }).data?.n;
        return null;
      },
    }));
    expectSentAgain(sent, `${BASE}/s`, `${BASE}/p`);
  });

  it("the same for an infinite query: back online, the shared feed sends its page's request as plain useInfiniteQuery does", async () => {
    const pages = { initialPageParam: 0, getNextPageParam: () => null, retry: false as const };
    const sent = await remountOfflineThenRaiseStaleTime((store, host, shown) => ({
      Shared: ({ staleTime }) => {
        const options = sharedInfiniteQueryOptions<Body, number>(store, (p) => `${BASE}/s?cursor=${p}`, { ...pages, staleTime });
        shown.shared = useInfiniteQuery(options).data?.pages[0]?.n;
        return null;
      },
      Plain: ({ staleTime }) => {
        const queryFn = async ({ pageParam }: { pageParam: number }) =>
          (await (await host.fetch(`${BASE}/p?cursor=${pageParam}`)).json()) as Body;
        shown.plain = useInfiniteQuery({ queryKey: ["plain"], queryFn, ...pages, staleTime }).data?.pages[0]?.n;
        return null;
      },
    }));
    expectSentAgain(sent, `${BASE}/s?cursor=0`, `${BASE}/p?cursor=0`);
  });

  it("the same for a feed's prefetchInfiniteQuery, an observer's staleTime raised meanwhile: back online, the shared prefetch sends its page's request as plain TanStack's does", async () => {
    const pages = { initialPageParam: 0, getNextPageParam: () => null, retry: false as const };
    // Each mount prefetches with staleTime 0; a disabled observer shows the cache and carries the staleTime given.
    const pane =
      (options: (staleTime: number) => object, show: (n: number | undefined) => void): Pane =>
      ({ staleTime }) => {
        const client = useQueryClient();
        const q = useInfiniteQuery({ ...options(staleTime), enabled: false } as never);
        show((q.data?.pages[0] as Body | undefined)?.n);
        useEffect(() => void client.prefetchInfiniteQuery(options(0) as never), [client]);
        return null;
      };
    const sent = await remountOfflineThenRaiseStaleTime((store, host, shown) => ({
      Shared: pane(
        (staleTime) => sharedInfiniteQueryOptions<Body, number>(store, (p) => `${BASE}/s?cursor=${p}`, { ...pages, staleTime }),
        (n) => (shown.shared = n),
      ),
      Plain: pane(
        (staleTime) => ({
          queryKey: ["plain"],
          queryFn: async ({ pageParam }: { pageParam: number }) =>
            (await (await host.fetch(`${BASE}/p?cursor=${pageParam}`)).json()) as Body,
          ...pages,
          staleTime,
        }),
        (n) => (shown.plain = n),
      ),
    }));
    expectSentAgain(sent, `${BASE}/s?cursor=0`, `${BASE}/p?cursor=0`);
  });
});
