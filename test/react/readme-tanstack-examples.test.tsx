// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query": its `Views`, `serverState` and `Feed` examples as the README
 * writes them (test/package/readme-examples.test.ts compiles them; this runs them), `Views` and
 * `Feed` in two tabs (two replicas). What they promise: `Views`' add button POSTs once, with an Idempotency-Key, and "this
 * tab's active list query refetches, once; every tab and device showing it gets the new list";
 * `Feed`: "K tabs showing the feed send one request per page", and its refresh asks every page anew;
 * `serverState`: "the client hydrates with <HydrationBoundary state={state}> and makes no request
 * while the data is fresh".
 */
import {
  dehydrate,
  HydrationBoundary,
  QueryClient,
  useInfiniteQuery,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  useSuspenseQuery,
} from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Suspense } from "react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  createSharedFetchStore,
  sharedInfiniteQueryOptions,
  sharedMutationFn,
  sharedQueryOptions,
  useSharedFetchStore,
  type SharedFetchStore,
} from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

type Item = { id: number; name: string };

/** The README's Views, verbatim but for `store`, which the README declares and a tab passes here, and two comments. */
function viewsOf(store: SharedFetchStore) {
  const items = sharedQueryOptions<Item[]>(store, "https://api.example.com/items", { staleTime: 10_000 });
  return function Views() {
    const list = useQuery(items); // also useSuspenseQuery(items), useQueries({ queries: [items] })
    const names = useQuery({ ...items, select: (all: Item[]) => all.map((i) => i.name) });
    useSuspenseQuery(items);
    useQueries({ queries: [items] });
    const client = useQueryClient();
    const add = useMutation({
      mutationFn: sharedMutationFn(useSharedFetchStore(), (name: string) => ({
        url: "https://api.example.com/items",
        method: "POST",
        body: JSON.stringify({ name }),
      })),
      onSuccess: () => client.invalidateQueries({ queryKey: ["shared-fetch", "GET", "https://api.example.com/items"] }),
    });
    return list.isSuccess ? (
      <button onClick={() => add.mutate("new")}>
        {list.data.length} items, {names.data?.join(", ")}
      </button>
    ) : null;
  };
}

/** The README's serverState, verbatim but for its store (a plain Y.Doc's, as the README says). */
function serverStateOf(store: SharedFetchStore) {
  const items = sharedQueryOptions<Item[]>(store, "https://api.example.com/items", { staleTime: 10_000 });
  return async function serverState() {
    const client = new QueryClient();
    await client.prefetchQuery(items); // likewise ensureQueryData, fetchQuery
    return dehydrate(client);
  };
}

type FeedPage = { items: { id: number; text: string }[]; next: number | null };

/** The README's Feed, verbatim. */
function Feed() {
  const store = useSharedFetchStore();
  const feed = sharedInfiniteQueryOptions(store, (cursor: number) => `https://api.example.com/feed?cursor=${cursor}`, {
    initialPageParam: 0,
    getNextPageParam: (last: FeedPage) => last.next,
    staleTime: 30_000,
    maxPages: 10,
  });
  const q = useInfiniteQuery({ ...feed, select: (data) => data.pages.flatMap((page) => page.items) });
  const client = useQueryClient();
  return (
    <>
      {q.data?.map((item) => (
        <p key={item.id}>{item.text}</p>
      ))}
      <button onClick={() => void q.fetchNextPage()} disabled={!q.hasNextPage}>
        more
      </button>
      <button onClick={() => void client.invalidateQueries({ queryKey: feed.queryKey })}>refresh</button>
    </>
  );
}

const tab = (name: string) => within(screen.getByTestId(name));

describe("README, Coming from TanStack Query: the examples run as shown", () => {
  it("Views in two tabs: one GET for both; add in tab A is one POST with an Idempotency-Key and one GET, and both tabs show the new list", async () => {
    const c = cluster(2, { settleMs: 0 });
    const list: Item[] = [{ id: 1, name: "first" }];
    c.host.auto = (call) => {
      if (call.method === "POST") list.push({ id: list.length + 1, ...(JSON.parse(call.body!) as { name: string }) });
      return { status: call.method === "POST" ? 201 : 200, body: call.method === "POST" ? list.at(-1) : list };
    };
    const [a, b] = c.stores;
    const [ViewsA, ViewsB] = [viewsOf(a!), viewsOf(b!)];
    render(
      <>
        <div data-testid="a">{app(a!, <Suspense fallback="loading">{<ViewsA />}</Suspense>)}</div>
        <div data-testid="b">{app(b!, <Suspense fallback="loading">{<ViewsB />}</Suspense>)}</div>
      </>,
    );
    await waitFor(() =>
      expect([tab("a").getByRole("button").textContent, tab("b").getByRole("button").textContent]).toEqual([
        "1 items, first",
        "1 items, first",
      ]),
    );
    expect(c.host.calls.map((call) => call.method)).toEqual(["GET"]);

    fireEvent.click(tab("a").getByRole("button"));
    await waitFor(() =>
      expect([tab("a").getByRole("button").textContent, tab("b").getByRole("button").textContent]).toEqual([
        "2 items, first, new",
        "2 items, first, new",
      ]),
    );
    expect(c.host.calls.map((call) => call.method)).toEqual(["GET", "POST", "GET"]);
    expect(c.host.calls[1]!.headers["idempotency-key"]).toBeTruthy();
  });

  it("Feed in two tabs: one request per page for both, more loads the next page once, refresh asks every page anew once", async () => {
    const c = cluster(2, { settleMs: 0 });
    let version = 1;
    c.host.auto = (call) => {
      const cursor = Number(new URL(call.url).searchParams.get("cursor"));
      const page: FeedPage = { items: [{ id: cursor, text: `item ${cursor} v${version}` }], next: cursor < 2 ? cursor + 1 : null };
      return { status: 200, body: page };
    };
    const [a, b] = c.stores;
    render(
      <>
        <div data-testid="a">{app(a!, <Feed />)}</div>
        <div data-testid="b">{app(b!, <Feed />)}</div>
      </>,
    );
    const shown = (name: string) =>
      tab(name)
        .queryAllByText(/^item /)
        .map((p) => p.textContent);
    await waitFor(() => expect([shown("a"), shown("b")]).toEqual([["item 0 v1"], ["item 0 v1"]]));
    expect(c.host.calls.map((call) => call.url)).toEqual(["https://api.example.com/feed?cursor=0"]);

    await act(async () => void fireEvent.click(tab("a").getByText("more")));
    await act(async () => void fireEvent.click(tab("b").getByText("more")));
    await waitFor(() =>
      expect([shown("a"), shown("b")]).toEqual([
        ["item 0 v1", "item 1 v1"],
        ["item 0 v1", "item 1 v1"],
      ]),
    );
    expect(c.host.calls.map((call) => call.url)).toEqual([
      "https://api.example.com/feed?cursor=0",
      "https://api.example.com/feed?cursor=1",
    ]);

    version = 2;
    await act(async () => void fireEvent.click(tab("a").getByText("refresh")));
    await waitFor(() =>
      expect([shown("a"), shown("b")]).toEqual([
        ["item 0 v2", "item 1 v2"],
        ["item 0 v2", "item 1 v2"],
      ]),
    );
    expect(c.host.calls.slice(2).map((call) => call.url)).toEqual([
      "https://api.example.com/feed?cursor=0",
      "https://api.example.com/feed?cursor=1",
    ]);
  });

  it("serverState on a store of a plain Y.Doc, hydrated with HydrationBoundary into Views: the page shows the data and sends no request while it is fresh", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: [{ id: 1, name: "first" }] });
    const server = createSharedFetchStore({ doc: new Y.Doc(), fetch: c.host.fetch, locks: null, settleMs: 0 });
    const state = await serverStateOf(server)();
    server.destroy();
    expect(c.host.calls).toHaveLength(1);
    const Views = viewsOf(c.stores[0]!);
    render(
      app(
        c.stores[0]!,
        <HydrationBoundary state={state}>
          <Suspense fallback="loading">
            <Views />
          </Suspense>
        </HydrationBoundary>,
      ),
    );
    expect(screen.getByRole("button").textContent).toBe("1 items, first");
    await act(() => new Promise((r) => setTimeout(r, 200)));
    expect(c.host.calls).toHaveLength(1);
  });

  // Views' onSuccess comment: where the list is cached but not mounted in the mutating tab, pass
  // refetchType: "all" (TanStack's default refetches active queries only, and nothing is then sent
  // for the others to see); where this tab never showed the list, nothing of it is cached to
  // refetch: `store.refetch({ url })` sends it.
  it.each([
    ["the list cached, not mounted; default refetchType", "cached", "active", ["GET", "POST"], "1 items"],
    ['the list cached, not mounted; refetchType "all"', "cached", "all", ["GET", "POST", "GET"], "2 items"],
    ['the list never shown in the mutating tab; refetchType "all" has nothing to refetch', "never", "all", ["GET", "POST"], "1 items"],
    ["the list never shown in the mutating tab; store.refetch", "never", "store", ["GET", "POST", "GET"], "2 items"],
  ] as const)("Views' add where the mutating tab shows no list: %s", async (_, listInA, then, sent, shownInB) => {
    const c = cluster(2, { settleMs: 0 });
    const list: Item[] = [{ id: 1, name: "first" }];
    c.host.auto = (call) => {
      if (call.method === "POST") list.push({ id: list.length + 1, ...(JSON.parse(call.body!) as { name: string }) });
      return { status: call.method === "POST" ? 201 : 200, body: call.method === "POST" ? list.at(-1) : list };
    };
    const [a, b] = c.stores;
    const url = "https://api.example.com/items";
    function List({ store }: { store: SharedFetchStore }) {
      const q = useQuery(sharedQueryOptions<Item[]>(store, url, { staleTime: 10_000 }));
      return <p>{q.data ? `${q.data.length} items` : "loading"}</p>;
    }
    function Add() {
      const client = useQueryClient();
      const store = useSharedFetchStore();
      const add = useMutation({
        mutationFn: sharedMutationFn(store, (name: string) => ({ url, method: "POST", body: JSON.stringify({ name }) })),
        // Returned, so the mutation settles (the button reads "added") once this has run.
        onSuccess: () =>
          then === "store"
            ? store.refetch({ url })
            : client.invalidateQueries({ queryKey: ["shared-fetch", "GET", url], refetchType: then }),
      });
      return <button onClick={() => add.mutate("new")}>{add.isSuccess ? "added" : "add"}</button>;
    }
    const clientA = new QueryClient();
    const page = (inA: "list" | "add") => (
      <>
        <div data-testid="a">{app(a!, inA === "list" ? <List store={a!} /> : <Add />, clientA)}</div>
        <div data-testid="b">{app(b!, <List store={b!} />)}</div>
      </>
    );
    const view = render(page(listInA === "cached" ? "list" : "add"));
    await waitFor(() => expect(tab("b").getByRole("paragraph").textContent).toBe("1 items"));
    if (listInA === "cached") {
      await waitFor(() => expect(tab("a").getByRole("paragraph").textContent).toBe("1 items"));
      view.rerender(page("add")); // A's route changes: its list unmounts, its query stays cached, inactive
    }
    fireEvent.click(tab("a").getByRole("button"));
    await waitFor(() => expect(tab("a").getByRole("button").textContent).toBe("added"));
    expect(c.host.calls.map((call) => call.method)).toEqual(sent);
    await waitFor(() => expect(tab("b").getByRole("paragraph").textContent).toBe(shownInB));
  });
});
