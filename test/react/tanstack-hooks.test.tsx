// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query": TanStack's own hooks work with sharedQueryOptions
 * ("everything you know holds": `useQuery(items)`, `useSuspenseQuery(items)`, `useQueries(...)`).
 * - `refetch()` from their results and `refetchQueries` ask for a newer revision, as TanStack always
 *   fetches then (even while the data is fresh); focus and reconnect stay freshness demands.
 * - "One tab refetches; every tab and device shows the new list": a tab that renders them receives
 *   the results other replicas record, with the writer's `at` as dataUpdatedAt, wherever its
 *   SharedFetchProvider sits (inside or outside QueryClientProvider, or none at all).
 * - The bridge that brings them leaks nothing: no store subscription once the last observer goes,
 *   no cache listener once nothing uses it; a disabled query subscribes to nothing.
 */
import {
  focusManager,
  onlineManager,
  QueryClient,
  QueryClientProvider,
  useQueries,
  useQuery,
  useSuspenseQuery,
  type QueryKey,
} from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { Suspense, type ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import {
  sharedQueryOptions,
  SharedFetchProvider,
  useSharedFetch,
  type SharedFetchStoreWithExtras,
  type SharedQueryOptions,
} from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
  onlineManager.setOnline(true);
});

type Item = { n: number };
type Shown = { data: Item | undefined; refetch: () => Promise<unknown> };
type Hook = "useQuery" | "useQueries" | "useSuspenseQuery";
type Placement = "provider inside QueryClientProvider" | "provider outside QueryClientProvider" | "no SharedFetchProvider";

/** Renders one of TanStack's own hooks on sharedQueryOptions; `seen.at(-1)` is the latest result. */
function Pane({
  store,
  hook,
  name,
  seen,
  options,
}: {
  store: SharedFetchStoreWithExtras;
  hook: Hook;
  name: string;
  seen: Shown[];
  options?: object;
}) {
  const items = sharedQueryOptions<Item>(store, URL_A, { staleTime: 10_000, ...options });
  const q = HOOKS[hook](items);
  seen.push(q);
  return <span data-testid={name}>{q.data ? String(q.data.n) : "none"}</span>;
}

/** One hook per pane for its whole life (a Pane never changes `hook`). */
const HOOKS: Record<Hook, (items: SharedQueryOptions<Item>) => Shown> = {
  useQuery: (items) => useQuery(items),
  useQueries: (items) => useQueries({ queries: [items] })[0],
  useSuspenseQuery: (items) => useSuspenseQuery(items),
};

function tab(
  store: SharedFetchStoreWithExtras,
  client: QueryClient,
  node: ReactNode,
  placement: Placement = "provider inside QueryClientProvider",
) {
  const inSuspense = <Suspense fallback={<span>loading</span>}>{node}</Suspense>;
  if (placement === "no SharedFetchProvider") return <QueryClientProvider client={client}>{inSuspense}</QueryClientProvider>;
  if (placement === "provider outside QueryClientProvider")
    return (
      <SharedFetchProvider store={store}>
        <QueryClientProvider client={client}>{inSuspense}</QueryClientProvider>
      </SharedFetchProvider>
    );
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{inSuspense}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

const text = (name: string) => screen.getByTestId(name).textContent;
const KEY_PREFIX: QueryKey = ["shared-fetch", "GET", URL_A];

describe("refetch() from TanStack's own hooks asks for a newer revision (README: `refetch()` asks for a newer revision)", () => {
  for (const hook of ["useQuery", "useQueries", "useSuspenseQuery"] as const) {
    it(`${hook}: refetch() sends one request while the data is fresh (staleTime 10 s) and shows the new data`, async () => {
      const c = cluster(1, { settleMs: 0 });
      c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
      const seen: Shown[] = [];
      render(tab(c.stores[0]!, new QueryClient(), <Pane store={c.stores[0]!} hook={hook} name="a" seen={seen} />));
      await waitFor(() => expect(text("a")).toBe("1"));
      await act(() => seen.at(-1)!.refetch());
      expect(c.host.calls).toHaveLength(2);
      await waitFor(() => expect(text("a")).toBe("2"));
    });
  }

  it("a `behavior` of your own still runs before each fetch (composed with the one that tells the query function why it runs)", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const runs: (boolean | undefined)[] = [];
    const seen: Shown[] = [];
    const behavior = {
      onFetch: (context: { fetchOptions?: { cancelRefetch?: boolean } }) => void runs.push(context.fetchOptions?.cancelRefetch),
    };
    render(tab(c.stores[0]!, new QueryClient(), <Pane store={c.stores[0]!} hook="useQuery" name="a" seen={seen} options={{ behavior }} />));
    await waitFor(() => expect(text("a")).toBe("1"));
    await act(() => seen.at(-1)!.refetch());
    await waitFor(() => expect(text("a")).toBe("2"));
    expect(runs).toEqual([undefined, true]);
    expect(c.host.calls).toHaveLength(2);
  });

  it('refetchQueries asks for a newer revision too (TanStack fetches then), and so do a focus and a reconnect whose option says "always"', async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const client = new QueryClient();
    const fetches: string[] = [];
    client.getQueryCache().subscribe((e) => void (e.type === "updated" && e.action.type === "fetch" && fetches.push("fetch")));
    const options = { refetchOnWindowFocus: "always", refetchOnReconnect: "always" };
    render(tab(c.stores[0]!, client, <Pane store={c.stores[0]!} hook="useQuery" name="a" seen={[]} options={options} />));
    await waitFor(() => expect(text("a")).toBe("1"));
    await act(() => client.refetchQueries({ queryKey: KEY_PREFIX }));
    expect(c.host.calls).toHaveLength(2);
    await waitFor(() => expect(text("a")).toBe("2"));
    // "always": TanStack runs the query function on focus and on reconnect although the data is
    // fresh, and so does the store: each asks for a newer revision, as an explicit refetch.
    const before = fetches.length;
    await act(async () => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    await waitFor(() => expect(client.getQueryCache().findAll({ queryKey: KEY_PREFIX })[0]!.state.fetchStatus).toBe("idle"));
    await act(async () => {
      onlineManager.setOnline(false);
      onlineManager.setOnline(true);
    });
    await waitFor(() => expect(client.getQueryCache().findAll({ queryKey: KEY_PREFIX })[0]!.state.fetchStatus).toBe("idle"));
    expect(fetches.length).toBe(before + 2);
    expect(c.host.calls).toHaveLength(4);
    await waitFor(() => expect(text("a")).toBe("4"));
  });
});

describe('README: "One tab refetches; every tab and device shows the new list" with TanStack\'s own hooks', () => {
  it("two tabs rendering useQuery(items): tab A's refetch() sends one request; tab B shows the new list (writer's `at` as dataUpdatedAt) without a request of its own", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const seenA: Shown[] = [];
    const clientB = new QueryClient();
    render(tab(a, new QueryClient(), <Pane store={a} hook="useQuery" name="a" seen={seenA} />));
    await waitFor(() => expect(text("a")).toBe("1"));
    render(tab(b, clientB, <Pane store={b} hook="useQuery" name="b" seen={[]} />));
    await waitFor(() => expect(text("b")).toBe("1"));
    expect(c.host.calls).toHaveLength(1);
    await act(() => seenA.at(-1)!.refetch());
    await waitFor(() => expect(text("b")).toBe("2"));
    expect(c.host.calls).toHaveLength(2);
    const state = clientB.getQueryCache().findAll({ queryKey: KEY_PREFIX })[0]!.state;
    expect(state.dataUpdatedAt).toBe(b.resultInfo({ url: URL_A })!.at);
  });

  const placements: Placement[] = ["provider inside QueryClientProvider", "provider outside QueryClientProvider", "no SharedFetchProvider"];
  for (const hook of ["useQuery", "useQueries", "useSuspenseQuery"] as const)
    for (const placement of placements)
      it(`${hook}, ${placement}: a result another replica records reaches the tab`, async () => {
        const c = cluster(2, { settleMs: 0 });
        const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
        c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
        render(tab(b, new QueryClient(), <Pane store={b} hook={hook} name="b" seen={[]} />, placement));
        await waitFor(() => expect(text("b")).toBe("1"));
        await act(async () => void (await a.refetch({ url: URL_A })));
        await waitFor(() => expect(text("b")).toBe("2"));
        expect(c.host.calls).toHaveLength(2);
      });
});

describe("the bridge leaks nothing", () => {
  /** Counts the store subscriptions that stand (the bridge's and the hooks' alike). */
  function counted(store: SharedFetchStoreWithExtras) {
    const live = new Set<object>();
    const subscribe = store.subscribe.bind(store);
    store.subscribe = (req, listener) => {
      const token = {};
      live.add(token);
      const off = subscribe(req, listener);
      return () => {
        live.delete(token);
        off();
      };
    };
    return live;
  }

  it("a store subscription only while the query has an enabled observer; the cache listener goes once nothing uses the bridge", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const live = counted(b);
    const client = new QueryClient();
    const view = render(tab(b, client, <Pane store={b} hook="useQuery" name="b" seen={[]} />));
    await waitFor(() => expect(text("b")).toBe("1"));
    expect(live.size).toBe(1);
    view.rerender(tab(b, client, <Pane store={b} hook="useQuery" name="b" seen={[]} options={{ enabled: false }} />));
    await waitFor(() => expect(live.size).toBe(0));
    await act(async () => void (await a.refetch({ url: URL_A })));
    expect(text("b")).toBe("1"); // disabled: not watched
    view.rerender(tab(b, client, <Pane store={b} hook="useQuery" name="b" seen={[]} />));
    await waitFor(() => expect(text("b")).toBe("2")); // enabled again: the recorded result reaches it at once
    expect(live.size).toBe(1);
    view.unmount();
    await waitFor(() => expect(live.size).toBe(0));
    // The query stays cached (gcTime), and so does the bridge, for the next mount; then it goes.
    expect(client.getQueryCache().hasListeners()).toBe(true);
    act(() => client.clear());
    expect(client.getQueryCache().hasListeners()).toBe(false);
    expect(c.host.calls).toHaveLength(2);
  });
});

describe("useSharedFetch shares the bridge: one push per recorded result, no extra render", () => {
  it("a result another replica records is set once into the cache that useSharedFetch and useQuery observe together; the data-only pane renders once for it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const client = new QueryClient();
    const sets: unknown[] = [];
    client
      .getQueryCache()
      .subscribe((e) => void (e.type === "updated" && e.action.type === "success" && e.action.manual && sets.push(e.action.data)));
    const renders: unknown[] = [];
    function DataPane() {
      const { data } = useSharedFetch<Item>(URL_A, { staleTime: 10_000 });
      renders.push(data);
      return <span data-testid="shared">{data ? String(data.n) : "none"}</span>;
    }
    render(
      tab(
        b,
        client,
        <>
          <DataPane />
          <Pane store={b} hook="useQuery" name="plain" seen={[]} />
        </>,
      ),
    );
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["1", "1"]));
    // TanStack notifies on a 0 ms timer; the re-stamp with the writer's `at` lands after the result.
    await act(() => new Promise((r) => setTimeout(r, 20)));
    const before = { sets: sets.length, renders: renders.length };
    await act(async () => void (await a.refetch({ url: URL_A })));
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["2", "2"]));
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(sets.slice(before.sets)).toEqual([{ n: 2 }]);
    expect(renders.slice(before.renders)).toEqual([{ n: 2 }]);
  });
});
