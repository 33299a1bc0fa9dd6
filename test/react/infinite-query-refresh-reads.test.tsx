// @vitest-environment jsdom
/**
 * The cost of a refresh of an N-page feed in a tab that shows it while another tab refreshes it:
 * the records read (the store's snapshot and resultInfo) grow with N, not N². Each page recorded
 * (and each claim seen) notifies the feed, and each notice used to read the chain up to the first
 * page not yet newer (2N² + 2N + 2 reads: 72, 882, 5202 for 5, 20, 50 pages); it now reads the last
 * shown page first, which one refresh records last, and the chain once that one is newer.
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

type Page = { cursor: number; next: number | null; v: number };

for (const N of [5, 20, 50]) {
  it(`another tab refreshes a feed of ${N} pages: this tab reads at most 6N + 2 records to show the newer pages, the refreshing tab N + 2`, async () => {
    useFakeClock();
    const locks = new FakeLocks();
    const c = cluster(0, { settleMs: 0 });
    let version = 1;
    c.host.auto = (call) => {
      const cursor = Number(new URL(call.url).searchParams.get("cursor"));
      return { status: 200, body: { cursor, next: cursor < N - 1 ? cursor + 1 : null, v: version } };
    };
    const a = c.join({ locks: locks.forTab("a"), browserId: "b1" });
    const b = c.join({ locks: locks.forTab("b"), browserId: "b1" });
    const feed = (store: SharedFetchStoreWithExtras) =>
      sharedInfiniteQueryOptions(store, (cursor: number) => `${URL_A}?cursor=${cursor}`, {
        initialPageParam: 0,
        getNextPageParam: (last: Page) => last.next,
        staleTime: 60_000,
      });
    for (let i = 0; i < N; i++) await act(async () => void (await a.ensure({ url: `${URL_A}?cursor=${i}` })));
    const qa: { current?: ReturnType<typeof useInfiniteQuery> } = {};
    function Feed({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
      const q = useInfiniteQuery(feed(store));
      if (name === "a") qa.current = q as never;
      return <span data-testid={name}>{q.data ? `${q.data.pages.length}@${(q.data.pages.at(-1) as Page).v}` : q.status}</span>;
    }
    render(
      <>
        {app(a, <Feed store={a} name="a" />, new QueryClient())}
        {app(b, <Feed store={b} name="b" />, new QueryClient())}
      </>,
    );
    await advance(50);
    expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual([`${N}@1`, `${N}@1`]);
    const reads = { a: 0, b: 0 };
    for (const [name, s] of [
      ["a", a],
      ["b", b],
    ] as const) {
      const snap = s.snapshot.bind(s);
      const info = s.resultInfo.bind(s);
      s.snapshot = (req) => (reads[name]++, snap(req));
      s.resultInfo = (req) => (reads[name]++, info(req));
    }
    version = 2;
    const calls = c.host.calls.length;
    await act(async () => void qa.current!.refetch());
    await advance(1000);
    expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual([`${N}@2`, `${N}@2`]);
    expect(c.host.calls.length - calls).toBe(N);
    expect(reads.a).toBeLessThanOrEqual(N + 2);
    expect(reads.b).toBeLessThanOrEqual(6 * N + 2);
  });
}
