// @vitest-environment jsdom
/**
 * README, "Clock skew between devices", for a feed: pages from a device whose clock runs ahead are
 * dated in this tab's future, so when their requests were sent is unknown here (no later than their
 * arrival). Put into an observed feed, they must not undo the app's optimistic update of it
 * (cancelQueries + setQueryData) made after those requests may have left, as a single result from
 * such a device does not (clock-skew-optimistic-update.test.tsx).
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
type Page = { cursor: number; next: number | null; v: number };
type Feed = { pages: Page[]; pageParams: number[] };
const FEED = "https://api.example.test/feed";
const page = (cursor: number) => `${FEED}?cursor=${cursor}`;
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const text = (name: string) => screen.getByTestId(name).textContent;

function Shown({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, (cursor: number) => page(cursor), {
      initialPageParam: 0,
      getNextPageParam: (last: Page) => last.next,
      staleTime: 60_000,
    }),
  );
  return <span data-testid={name}>{q.data ? q.data.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") : q.status}</span>;
}

describe("clock skew: a feed's pages from a device whose clock runs ahead do not undo the app's set", () => {
  it("A's optimistic update of its feed stays when B's refresh, sent before it, arrives", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = () => undefined;
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const clientA = new QueryClient();
    render(
      <>
        {app(a, <Shown store={a} name="a" />, clientA)}
        {app(b, <Shown store={b} name="b" />, new QueryClient())}
      </>,
    );
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    c.host.calls[0]!.respond(200, { cursor: 0, next: null, v: 1 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["0@1", "0@1"]));
    // B, its clock 10 s ahead of A's, sends a refresh that is left in flight.
    vi.setSystemTime(Date.now() + 10_000);
    void b.refetch({ url: page(0) });
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    vi.useRealTimers();
    await pause(5);
    const queryA = clientA.getQueryCache().getAll()[0]!;
    await act(async () => {
      await clientA.cancelQueries({ queryKey: queryA.queryKey });
      clientA.setQueryData<Feed>(queryA.queryKey, (old) => old && { ...old, pages: [{ ...old.pages[0]!, v: 999 }] });
    });
    c.host.calls[1]!.respond(200, { cursor: 0, next: null, v: 2 }); // read before A's mutation
    await waitFor(() => expect(text("b")).toBe("0@2"));
    await pause(30);
    expect(text("a")).toBe("0@999");
  });
});
