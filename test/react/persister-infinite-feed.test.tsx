// @vitest-environment jsdom
/**
 * An infinite feed restored by TanStack's persister (PersistQueryClientProvider, an async storage
 * persister over the browser's one storage), beside plain useInfiniteQuery, against a real HTTP
 * server on 127.0.0.1 (README, "Infinite queries"): K tabs reloading at once send one request per
 * page when the restored feed is stale, none while it is fresh; a refetch() of a restored feed
 * asks every page anew, once, stale or fresh, as plain useInfiniteQuery does (before, on a stale
 * feed it was taken as a mount, and a page another tab recorded within the staleTime answered it).
 */
import { useInfiniteQuery, type QueryClient } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { persistedQueries, persistedTab, persistingBrowser, type MemoryStorage } from "../harness/persister.tsx";
import { pause, sideBySideServerForFile, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

const sent = (side: "/s" | "/p") => server.seen.filter((p) => p.startsWith(side)).length;
/** Two pages: cursors 0 and 1. */
const feedOptions = (staleTime: number, extra: object = {}) => ({
  initialPageParam: 0,
  getNextPageParam: (_last: Body, all: Body[]) => (all.length < 2 ? all.length : undefined),
  staleTime,
  ...extra,
});

/** A tab with the shared feed and a plain one, each logged as "<status> <fetchStatus> <n of each page>". */
function feeds(store: SharedFetchStoreWithExtras, storage: MemoryStorage, path: string, staleTime: number, extra?: object) {
  const logs: string[][] = [[], []];
  const shared = sharedInfiniteQueryOptions(
    store,
    (cursor: number) => `${server.base}/s${path}?cursor=${cursor}`,
    feedOptions(staleTime, extra),
  );
  const plain = {
    queryKey: ["plain", path],
    queryFn: async ({ pageParam, signal }: { pageParam: number; signal: AbortSignal }) =>
      (await (await fetch(`${server.base}/p${path}?cursor=${pageParam}`, { signal })).json()) as Body,
    ...feedOptions(staleTime, extra),
  };
  const Feed = ({ which }: { which: 0 | 1 }) => {
    const q = useInfiniteQuery((which ? plain : shared) as typeof plain);
    const shown = `${q.status} ${q.fetchStatus} ${q.data?.pages.map((p) => p.n).join(",") ?? "-"}`;
    if (logs[which]!.at(-1) !== shown) logs[which]!.push(shown);
    return <button onClick={() => void q.fetchNextPage()}>more</button>;
  };
  const { element, client } = persistedTab(
    store,
    storage,
    <>
      <Feed which={0} />
      <Feed which={1} />
    </>,
  );
  const view = render(element);
  return { logs, client: client as QueryClient, shared, unmount: view.unmount, last: () => logs.map((l) => l.at(-1)) };
}

/** A first visit: both feeds load two pages, the persister saves them, the tab closes. */
async function firstVisit(path: string, staleTime: number) {
  const b = persistingBrowser();
  const first = b.tab();
  const one = feeds(first, b.storage, path, staleTime);
  await waitFor(() => expect(one.last()).toEqual(["success idle 1", "success idle 1"]));
  for (const more of screen.getAllByText("more")) fireEvent.click(more);
  await waitFor(() => expect(one.last()).toEqual(["success idle 1,1", "success idle 1,1"]));
  await waitFor(() => expect(persistedQueries(b.storage).map((q) => (q.state.data as { pages: unknown[] }).pages.length)).toEqual([2, 2]));
  one.unmount();
  first.destroy();
  b.c.crash(first);
  return { ...b, first };
}

describe("an infinite feed restored by the persister", () => {
  it("stale: nothing sent while restoring, then one request per page across the tabs (plain: one per page per tab)", async () => {
    const b = await firstVisit("/feed-stale", 400);
    await pause(500);
    const before = { s: sent("/s"), p: sent("/p") };
    b.storage.gate();
    const tabs = [0, 1, 2].map((i) => feeds(i ? b.tab(b.first) : b.tab(), b.storage, "/feed-stale", 400));
    await pause(100);
    expect([sent("/s"), sent("/p")]).toEqual([before.s, before.p]);
    act(() => b.storage.release());
    await waitFor(() => expect(sent("/p") - before.p).toBe(6));
    await waitFor(() => expect(tabs.map((t) => t.last()[0])).toEqual(Array(3).fill("success idle 2,2")));
    await pause(100);
    expect(sent("/s") - before.s).toBe(2);
  });

  it("fresh: no request in any tab", async () => {
    const b = await firstVisit("/feed-fresh", 60_000);
    const before = server.seen.length;
    b.storage.gate();
    const tabs = [0, 1, 2].map((i) => feeds(i ? b.tab(b.first) : b.tab(), b.storage, "/feed-fresh", 60_000));
    await pause(50);
    act(() => b.storage.release());
    await pause(300);
    expect(server.seen.length).toBe(before);
    for (const t of tabs) expect(t.last()).toEqual(["success idle 1,1", "success idle 1,1"]);
  });

  it("fresh, then refetch() in one tab: its first fetch is explicit, every page asked anew once, as plain useInfiniteQuery does", async () => {
    const b = await firstVisit("/feed-refetch", 60_000);
    const before = { s: sent("/s"), p: sent("/p") };
    const tabs = [0, 1].map(() => feeds(b.tab(b.first), b.storage, "/feed-refetch", 60_000));
    await pause(200);
    await act(() =>
      Promise.all(
        [0, 1].map((i) => tabs[0]!.client.refetchQueries({ queryKey: i ? ["plain", "/feed-refetch"] : tabs[0]!.shared.queryKey })),
      ),
    );
    await waitFor(() => expect(tabs[0]!.last()).toEqual(["success idle 2,2", "success idle 2,2"]));
    // The other tab shows the newer pages, pushed, with no request of its own.
    await waitFor(() => expect(tabs[1]!.last()[0]).toBe("success idle 2,2"));
    await pause(100);
    expect([sent("/s") - before.s, sent("/p") - before.p]).toEqual([2, 2]);
  });

  it("stale, not refetched on mount, then refetch() in one tab: every page is asked anew, once, though another tab recorded page 0 within the staleTime, as plain useInfiniteQuery does", async () => {
    const b = await firstVisit("/feed-stale-refetch", 400);
    await pause(500); // the persisted feed is stale
    // Another tab of the browser shows page 0 alone and refreshes it: recorded within the staleTime.
    const other = b.tab(b.first);
    await other.refetch({ url: `${server.base}/s/feed-stale-refetch?cursor=0` });
    const before = { s: sent("/s"), p: sent("/p") };
    const tab = feeds(b.tab(b.first), b.storage, "/feed-stale-refetch", 400, { refetchOnMount: false });
    await waitFor(() => expect(tab.last()).toEqual(["success idle 1,1", "success idle 1,1"]));
    await act(() =>
      Promise.all([0, 1].map((i) => tab.client.refetchQueries({ queryKey: i ? ["plain", "/feed-stale-refetch"] : tab.shared.queryKey }))),
    );
    await pause(100);
    expect(tab.last()).toEqual(["success idle 3,2", "success idle 2,2"]);
    expect([sent("/s") - before.s, sent("/p") - before.p]).toEqual([2, 2]);
  });
});
