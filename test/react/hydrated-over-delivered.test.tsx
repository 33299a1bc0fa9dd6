// @vitest-environment jsdom
/**
 * Data that enters a query without the store after the store delivered it a result: a client-side
 * navigation's `HydrationBoundary` (the data still fresh: no request at mount), `hydrate` (a persister's
 * restore), or `fetchQuery` with a query function of the app's own. From then on the query's
 * data is compared with recorded results by time, as any data from outside the store is: a result
 * whose request was sent before that data was fetched never replaces it, whatever its revision; one
 * sent after it does.
 */
import {
  dehydrate,
  hydrate,
  HydrationBoundary,
  QueryClient,
  QueryClientProvider,
  useQuery,
  type DehydratedState,
} from "@tanstack/react-query";
import { act, cleanup, render, screen, type RenderResult } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedQueryOptions, SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance } from "../harness/render-app.tsx";
import { cluster, until, URL_A, useFakeClock, type Cluster } from "../harness/replicas.ts";

afterEach(cleanup);
type Item = { n: number | string };
const text = () => screen.getByTestId("pane").textContent;

/** The server's render of the page navigated to: its own store on a plain doc, its host answering "server". */
async function serverState(): Promise<DehydratedState> {
  const fetch = (async () => Response.json({ n: "server" })) as typeof globalThis.fetch;
  const store = createSharedFetchStore({ doc: new Y.Doc(), fetch, settleMs: 0 });
  const client = new QueryClient();
  await until(client.prefetchQuery(sharedQueryOptions(store, URL_A)));
  store.destroy();
  return JSON.parse(JSON.stringify(dehydrate(client))) as DehydratedState;
}

function Pane({ store, staleTime = 10_000 }: { store: SharedFetchStoreWithExtras; staleTime?: number }) {
  const q = useQuery(sharedQueryOptions<Item>(store, URL_A, { staleTime }));
  return <span data-testid="pane">{String(q.data?.n ?? q.status)}</span>;
}

function page(client: QueryClient, store: SharedFetchStoreWithExtras, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** A client-side navigation in the first tab: the route's pane, now under the server's state for it. */
async function navigate(client: QueryClient, c: Cluster, view: RenderResult, staleTime?: number) {
  const state = await serverState();
  const tab = c.stores[0]!;
  view.rerender(
    page(
      client,
      tab,
      <HydrationBoundary state={state}>
        <Pane store={tab} staleTime={staleTime} />
      </HydrationBoundary>,
    ),
  );
}

/**
 * The tab shows the store's result (revision 1); a second later another tab refreshes (revision 2,
 * its request hung at the host); a second after that, `enter` puts newer data into the tab's query
 * from outside the store.
 */
async function enteredWhileOlderRequestRuns(enter: (client: QueryClient, c: Cluster, view: RenderResult) => Promise<void> | void) {
  const c = cluster(2, { settleMs: 0 });
  const [tab, other] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const client = new QueryClient();
  const view = render(page(client, tab, <Pane store={tab} />));
  await advance(0);
  c.host.calls[0]!.respond(200, { n: 1 });
  await advance(0);
  expect(text()).toBe("1");
  await advance(1_000);
  void other.refetch({ url: URL_A }).catch(() => {});
  await advance(0);
  expect(c.host.calls).toHaveLength(2);
  await advance(1_000);
  await enter(client, c, view);
  await advance(0);
  return { c, client, tab, other };
}

/** The older request answers; then another tab refreshes again, sent after the data that entered. */
async function olderThenNewer(c: Cluster, other: SharedFetchStoreWithExtras, entered: string) {
  c.host.calls[1]!.respond(200, { n: 2 });
  await advance(0);
  expect(other.snapshot({ url: URL_A }).data).toEqual({ n: 2 });
  await advance(50);
  expect(text()).toBe(entered);
  await advance(1_000);
  void other.refetch({ url: URL_A }).catch(() => {});
  await advance(0);
  c.host.calls[2]!.respond(200, { n: 3 });
  await advance(0);
  expect(text()).toBe("3");
}

describe("data from outside the store after a store delivery is compared by time, not by revision", () => {
  beforeEach(() => useFakeClock());

  it("HydrationBoundary on a client-side navigation: a result requested before the server fetched stays out; a later one goes in", async () => {
    const { c, other } = await enteredWhileOlderRequestRuns((client, c, view) => navigate(client, c, view));
    expect(text()).toBe("server");
    await olderThenNewer(c, other, "server");
  });

  it("hydrate (a persister's restore of a newer copy): the same", async () => {
    const { c, other } = await enteredWhileOlderRequestRuns(async (client) => {
      const state = await serverState();
      act(() => hydrate(client, state));
    });
    expect(text()).toBe("server");
    await olderThenNewer(c, other, "server");
  });

  it("fetchQuery with the app's own query function: the same", async () => {
    const { c, other } = await enteredWhileOlderRequestRuns(async (client, c) => {
      const { queryKey } = sharedQueryOptions(c.stores[0]!, URL_A);
      await act(() => client.fetchQuery({ queryKey, queryFn: async () => ({ n: "own" }), staleTime: 0 }));
    });
    expect(text()).toBe("own");
    await olderThenNewer(c, other, "own");
  });

  it("HydrationBoundary with staleTime 0: the mount's refetch takes no request sent before the server fetched; it asks anew, as plain TanStack's request sent after the hydration", async () => {
    const { c } = await enteredWhileOlderRequestRuns((client, c, view) => navigate(client, c, view, 0));
    expect(text()).toBe("server");
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, { n: 2 });
    await advance(50);
    expect(text()).toBe("server");
    expect(c.host.calls).toHaveLength(3);
    c.host.calls[2]!.respond(200, { n: 3 });
    await advance(50);
    expect(text()).toBe("3");
  });
});
