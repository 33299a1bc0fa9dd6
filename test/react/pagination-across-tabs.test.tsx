// @vitest-environment jsdom
/**
 * TanStack's pagination with `placeholderData: keepPreviousData` in two tabs of one browser, each
 * paging on its own: a page either tab fetches is sent once for both, the previous page shows as
 * placeholder meanwhile, as with plain useQuery. These stores have no presence (no `awareness`), so
 * a tab that pages on past a page whose request it sent, while another tab waits on that request,
 * cannot hear the wait and aborts it (invariant 11); the other tab takes it over at once by the
 * key's Web Lock and sends it again (README, "What differs"; with presence the request goes on:
 * route-change-joined-request.test.tsx).
 */
import { keepPreviousData, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState, type ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { cluster, URL_A, type Cluster } from "../harness/replicas.ts";

afterEach(cleanup);

const text = (name: string) => screen.getByTestId(name).textContent;
const next = (name: string) => fireEvent.click(screen.getByText(`next in ${name}`));
const pageOf = (url: string) => new URL(url).searchParams.get("page");
const requestsFor = (c: Cluster, page: string) => c.host.calls.filter((call) => pageOf(call.url) === page);

function Pages({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const [page, setPage] = useState(1);
  const q = useQuery(sharedQueryOptions<{ p: number }>(store, `${URL_A}?page=${page}`, { placeholderData: keepPreviousData }));
  return (
    <>
      <span data-testid={name}>{`page ${page}: ${q.data?.p ?? "-"}${q.isPlaceholderData ? " (previous)" : ""}`}</span>
      <button onClick={() => setPage(page + 1)}>next in {name}</button>
    </>
  );
}

function tab(store: SharedFetchStoreWithExtras, node: ReactNode) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** Tabs A and B of one browser (one lock manager) on page 1; the host answers by hand. */
async function twoTabsOnPageOne() {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
  const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1" });
  c.host.auto = () => undefined;
  render(
    <>
      {tab(a, <Pages store={a} name="a" />)}
      {tab(b, <Pages store={b} name="b" />)}
    </>,
  );
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  c.host.calls[0]!.respond(200, { p: 1 });
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["page 1: 1", "page 1: 1"]));
  return c;
}

describe("pagination with keepPreviousData in two tabs", () => {
  it("B pages on while A's request for that page is in flight: one request, both show page 1 as placeholder, then page 2", async () => {
    const c = await twoTabsOnPageOne();
    next("a");
    await waitFor(() => expect(requestsFor(c, "2")).toHaveLength(1));
    next("b");
    await waitFor(() => expect(text("b")).toBe("page 2: 1 (previous)"));
    expect(text("a")).toBe("page 2: 1 (previous)");
    requestsFor(c, "2")[0]!.respond(200, { p: 2 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["page 2: 2", "page 2: 2"]));
    expect(requestsFor(c, "2")).toHaveLength(1);
  });

  it("A pages on to 3 while B waits on A's request for page 2, no presence: A's is aborted and B sends page 2 again (invariant 11; README, What differs)", async () => {
    const c = await twoTabsOnPageOne();
    next("a");
    await waitFor(() => expect(requestsFor(c, "2")).toHaveLength(1));
    next("b");
    await waitFor(() => expect(text("b")).toBe("page 2: 1 (previous)"));
    next("a");
    await waitFor(() => expect(requestsFor(c, "2")).toHaveLength(2));
    expect(requestsFor(c, "2").map((call) => call.aborted)).toEqual([true, false]);
    expect(text("b")).toBe("page 2: 1 (previous)");
    await act(async () => requestsFor(c, "2")[1]!.respond(200, { p: 2 }));
    await waitFor(() => expect(text("b")).toBe("page 2: 2"));
    requestsFor(c, "3")[0]!.respond(200, { p: 3 });
    await waitFor(() => expect(text("a")).toBe("page 3: 3"));
  });
});
