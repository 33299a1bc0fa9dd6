// @vitest-environment jsdom
/**
 * A route change (or a parent's `key`, or a wrapper element that changes) unmounts one component
 * and mounts another that shows the same key, in one commit, while its request is in flight.
 * TanStack then aborts the query's fetch (its last observer left, and the query function reads
 * the signal) and starts another; a plain useQuery whose function ignores the signal sends one
 * request in all. Invariant 11 (cancellation reaches the network) holds only once nobody wants
 * the key: the new mount wants it, so the request in flight is kept and joined.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Me({ page }: { page: string }) {
  const q = useSharedFetch<{ n: number }>(URL_A);
  return <span data-testid="me">{`${page} ${q.status} ${q.data?.n ?? "-"}`}</span>;
}

/** Two pages: both show the key (a header on each page), or only the list does. */
function Router({ go, detailShowsKey }: { go: (to: (page: string) => void) => void; detailShowsKey: boolean }) {
  const [page, setPage] = useState("list");
  go(setPage);
  if (page === "list")
    return (
      <div>
        <Me page="list" />
      </div>
    );
  return <section>{detailShowsKey ? <Me page="detail" /> : <span data-testid="me">detail</span>}</section>;
}

function mount(store: SharedFetchStoreWithExtras, detailShowsKey: boolean) {
  let navigate!: (page: string) => void;
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Router go={(to) => (navigate = to)} detailShowsKey={detailShowsKey} />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  return (page: string) => act(async () => navigate(page));
}

describe("a remount of the same key in one commit joins the request in flight (invariant 11: aborted only when nobody wants it)", () => {
  it("list → detail, both showing the key: one request, never aborted; another replica sees one claim throughout", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const seen: string[] = [];
    b!.subscribe({ url: URL_A }, () => {
      const s = b!.snapshot({ url: URL_A });
      seen.push(`${s.status} ${s.claim ? "claimed" : "unclaimed"}`);
    });
    const navigate = mount(a!, true);
    await c.host.whenCalls(1);
    await navigate("detail");
    await act(async () => {});
    expect(c.host.calls.map((call) => call.state)).toEqual(["in-flight"]);
    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await waitFor(() => expect(screen.getByTestId("me").textContent).toBe("detail success 1"));
    expect(c.host.calls).toHaveLength(1);
    await waitFor(() => expect(seen.at(-1)).toBe("success unclaimed"));
    expect(seen.filter((s) => s !== "pending claimed" && s !== "success unclaimed")).toEqual([]);
  });

  it("list → a detail page without the key: the request is still aborted at the network", async () => {
    const c = cluster(1, { settleMs: 0 });
    const navigate = mount(c.stores[0]!, false);
    const [call] = await c.host.whenCalls(1);
    await navigate("detail");
    await waitFor(() => expect(call!.state).toBe("aborted"));
    expect(c.host.calls).toHaveLength(1);
  });
});
