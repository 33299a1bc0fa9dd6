// @vitest-environment jsdom
/**
 * resetQueries on a shared infinite query: TanStack puts the query back to the state it was made
 * with, whose data is the chain of pages recorded then (its initialData). Pages this tab took since
 * (its own fetch, another tab's push) must not keep the store's newer pages out of it: the feed
 * never goes back in time while the reset's refetch runs, and an inactive feed's next mount shows
 * the pages the store holds, as `sharedQueryOptions` does (reset-queries-recorded.test.tsx).
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);
type Page = { cursor: number; next: number | null; v: number };
const FEED = "https://api.example.test/feed";
const page = (cursor: number) => `${FEED}?cursor=${cursor}`;
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

/** Tab B's feed, made when tab A had recorded version 1 of pages 0 and 1, then shown A's two refreshes. */
async function feedShowingThird() {
  const c = cluster(2, { settleMs: 0 });
  let version = 1;
  let delayMs = 0;
  c.host.auto = (call) => {
    const cursor = Number(new URL(call.url).searchParams.get("cursor"));
    return { status: 200, body: { cursor, next: cursor < 1 ? cursor + 1 : null, v: version } satisfies Page, delayMs };
  };
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const refresh = async () => {
    version++;
    await a.refetch({ url: page(0) });
    await a.refetch({ url: page(1) });
  };
  await a.ensure({ url: page(0) });
  await a.ensure({ url: page(1) });
  const client = new QueryClient();
  const shown: string[] = [];
  function Feed() {
    const q = useInfiniteQuery(
      sharedInfiniteQueryOptions(b, (cursor: number) => page(cursor), {
        initialPageParam: 0,
        getNextPageParam: (last: Page) => last.next,
        staleTime: 60_000,
      }),
    );
    const text = q.data ? q.data.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") : q.status;
    shown.push(text);
    return <span data-testid="b">{text}</span>;
  }
  const pane = app(b, <Feed />, client);
  const view = render(pane);
  expect(screen.getByTestId("b").textContent).toBe("0@1 1@1");
  await act(refresh);
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("0@2 1@2"));
  await act(refresh);
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("0@3 1@3"));
  return { c, client, shown, view, pane, setDelay: (ms: number) => (delayMs = ms) };
}

describe("resetQueries never shows a feed older than the pages the store holds at the reset", () => {
  it("an active feed: its pages refetched once each, showing the third refresh meanwhile, not the first", async () => {
    const { c, client, shown, setDelay } = await feedShowingThird();
    const before = c.host.calls.length;
    setDelay(100);
    shown.length = 0;
    await act(() => client.resetQueries());
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("0@3 1@3"));
    expect(shown).not.toContain("0@1 1@1");
    await waitFor(() => expect(c.host.calls.length).toBe(before + 2));
  });

  it("an inactive feed, reset: its next mount within the staleTime shows the latest pages at once, with no request", async () => {
    const { c, client, shown, view, pane } = await feedShowingThird();
    view.unmount();
    await act(() => client.resetQueries());
    const before = c.host.calls.length;
    shown.length = 0;
    render(pane);
    await pause(50);
    expect(shown.at(-1)).toBe("0@3 1@3");
    expect(shown).not.toContain("0@1 1@1");
    expect(c.host.calls.length).toBe(before);
  });
});
