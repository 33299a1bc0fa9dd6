// @vitest-environment jsdom
/**
 * A prefetch started offline waits, paused; an observer that mounts meanwhile joins it (TanStack
 * hands back that fetch's promise) and starts none. Back online, the fetch runs as it began: the
 * client's prefetch retries nothing unless told, so a failing host sees one request and the
 * observer shows the error with failureCount 1. sharedInfiniteQueryOptions recorded every call of
 * the query's fetch as the fetch's own, the joining observer's too: the prefetch then retried as an
 * observer's fetch does (TanStack's default 3), four requests where plain TanStack sends one. The
 * shared useQuery, whose record is made as a fetch starts (fetch-record.ts recordingBehavior), is held
 * to the same. The host answers 503 throughout; fake timers for the retry delays.
 */
import { onlineManager, QueryClient, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { useEffect, type FC } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, sharedQueryOptions, type SharedFetchStore } from "../../src/index.ts";
import type { Host } from "../../sim/host.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, useFakeClock } from "../harness/replicas.ts";

const BASE = "https://api.example.test";
type Shown = { status: string; fetchStatus: string; failureCount: number };
type Prefetch = (client: QueryClient) => Promise<void>;
type Observe = () => Shown;

beforeEach(useFakeClock);
afterEach(() => {
  cleanup();
  onlineManager.setOnline(true);
  vi.useRealTimers();
});

/**
 * Offline, each pane prefetches (paused), then an observer of the same options mounts; back
 * online, past every retry delay TanStack's default would wait (1 + 2 + 4 s). Returns what each
 * observer shows and the requests per URL.
 */
async function prefetchOfflineThenObserve(
  panes: (store: SharedFetchStore, host: Host) => Record<"shared" | "plain", { prefetch: Prefetch; useObserved: Observe }>,
) {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  const counts = new Map<string, number>();
  c.host.auto = (call) => {
    counts.set(call.url, (counts.get(call.url) ?? 0) + 1);
    return { status: 503, text: "busy" };
  };
  const made = panes(store, c.host);
  const shown: Partial<Record<"shared" | "plain", Shown>> = {};
  const Prefetcher: FC<{ prefetch: Prefetch }> = ({ prefetch }) => {
    const client = useQueryClient();
    useEffect(() => void prefetch(client).catch(() => {}), [client, prefetch]);
    return null;
  };
  const Observer: FC<{ name: "shared" | "plain"; useObserved: Observe }> = ({ name, useObserved }) => {
    const { status, fetchStatus, failureCount } = useObserved();
    shown[name] = { status, fetchStatus, failureCount };
    return null;
  };
  onlineManager.setOnline(false);
  const client = new QueryClient();
  const prefetchers = (
    <>
      <Prefetcher prefetch={made.shared.prefetch} />
      <Prefetcher prefetch={made.plain.prefetch} />
    </>
  );
  const { rerender } = render(app(store, prefetchers, client));
  await advance(100);
  const paused = client
    .getQueryCache()
    .getAll()
    .map((q) => q.state.fetchStatus);
  rerender(
    app(
      store,
      <>
        {prefetchers}
        <Observer name="shared" useObserved={made.shared.useObserved} />
        <Observer name="plain" useObserved={made.plain.useObserved} />
      </>,
      client,
    ),
  );
  await advance(100);
  onlineManager.setOnline(true);
  await advance(10_000);
  return { paused, shown, counts };
}

describe("an observer mounted on a prefetch paused offline joins it: the fetch retries as the prefetch began (none), as plain TanStack's", () => {
  it("useInfiniteQuery on prefetchInfiniteQuery: one request and the error with failureCount 1, as plain useInfiniteQuery", async () => {
    const pages = { initialPageParam: 0, getNextPageParam: () => null };
    const { paused, shown, counts } = await prefetchOfflineThenObserve((store, host) => {
      const shared = sharedInfiniteQueryOptions<unknown, number>(store, (p) => `${BASE}/s?cursor=${p}`, pages);
      const plain = {
        queryKey: ["plain"],
        queryFn: async ({ pageParam }: { pageParam: number }) => {
          const res = await host.fetch(`${BASE}/p?cursor=${pageParam}`);
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          return res.json() as Promise<unknown>;
        },
        ...pages,
      };
      return {
        shared: { prefetch: (client) => client.prefetchInfiniteQuery(shared), useObserved: () => useInfiniteQuery(shared) },
        plain: { prefetch: (client) => client.prefetchInfiniteQuery(plain), useObserved: () => useInfiniteQuery(plain) },
      };
    });
    expect(paused).toEqual(["paused", "paused"]);
    expect(counts).toEqual(
      new Map([
        [`${BASE}/s?cursor=0`, 1],
        [`${BASE}/p?cursor=0`, 1],
      ]),
    );
    const failedOnce = { status: "error", fetchStatus: "idle", failureCount: 1 };
    expect(shown).toEqual({ shared: failedOnce, plain: failedOnce });
  });

  it("useQuery on prefetchQuery: the same", async () => {
    const { paused, shown, counts } = await prefetchOfflineThenObserve((store, host) => {
      const shared = sharedQueryOptions(store, `${BASE}/s`);
      const plain = {
        queryKey: ["plain"],
        queryFn: async () => {
          const res = await host.fetch(`${BASE}/p`);
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          return res.json() as Promise<unknown>;
        },
      };
      return {
        shared: { prefetch: (client) => client.prefetchQuery(shared), useObserved: () => useQuery(shared) },
        plain: { prefetch: (client) => client.prefetchQuery(plain), useObserved: () => useQuery(plain) },
      };
    });
    expect(paused).toEqual(["paused", "paused"]);
    expect(counts).toEqual(
      new Map([
        [`${BASE}/s`, 1],
        [`${BASE}/p`, 1],
      ]),
    );
    const failedOnce = { status: "error", fetchStatus: "idle", failureCount: 1 };
    expect(shown).toEqual({ shared: failedOnce, plain: failedOnce });
  });
});
