// @vitest-environment jsdom
/**
 * TanStack's optimistic update recipe across tabs: useMutation's onMutate cancels the list query
 * (`cancelQueries`) and sets the optimistic list (`setQueryData`), onError rolls back to the
 * snapshot, onSettled invalidates. Here tab A's refresh is in flight and tab B, opened meanwhile,
 * joined it when A mutates. TanStack cancels A's fetch; the shared request must go on for B: aborted,
 * B took it over and sent it again after A's set, and that answer, read before the mutation,
 * replaced A's optimistic list (a second request, and the added item vanished until onSettled).
 */
import { QueryClient, QueryClientProvider, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import {
  createSharedFetchStore,
  sharedMutationFn,
  sharedQueryOptions,
  SharedFetchProvider,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A, type Cluster } from "../harness/replicas.ts";

afterEach(cleanup);

type List = { n: number };
const text = (name: string) => screen.getByTestId(name).textContent;
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const gets = (c: Cluster) => c.host.calls.filter((call) => call.method === "GET");

function Pane({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const items = sharedQueryOptions<List>(store, URL_A);
  const list = useQuery(items);
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: sharedMutationFn(store, (n: number) => ({ url: URL_A, method: "POST", body: JSON.stringify({ n }) })),
    onMutate: async (n: number) => {
      await client.cancelQueries({ queryKey: items.queryKey });
      const previous = client.getQueryData(items.queryKey);
      client.setQueryData(items.queryKey, { n });
      return { previous };
    },
    onError: (_error, _n, context) => client.setQueryData(items.queryKey, context?.previous),
    onSettled: () => client.invalidateQueries({ queryKey: items.queryKey }),
  });
  return (
    <>
      <span data-testid={name}>{list.data ? String(list.data.n) : list.status}</span>
      <button onClick={() => add.mutate(999)}>add in {name}</button>
    </>
  );
}

function tab(store: SharedFetchStoreWithExtras, client: QueryClient, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** A shows { n: 1 } and refreshes (request 2 in flight); B opens meanwhile and joins it; A mutates. */
async function mutateWhileSharedRefreshRuns() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => undefined;
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const [clientA, clientB] = [new QueryClient(), new QueryClient()];
  const view = render(tab(a, clientA, <Pane store={a} name="a" />));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  c.host.calls[0]!.respond(200, { n: 1 });
  await waitFor(() => expect(text("a")).toBe("1"));
  // Tabs hear each other a few ms late, as over BroadcastChannel.
  c.net.delayMs = 5;
  act(() => void clientA.refetchQueries());
  await waitFor(() => expect(c.host.calls).toHaveLength(2));
  view.rerender(
    <>
      {tab(a, clientA, <Pane store={a} name="a" />)}
      {tab(b, clientB, <Pane store={b} name="b" />)}
    </>,
  );
  await waitFor(() => expect(text("b")).toBe("1"));
  await pause(20);
  fireEvent.click(screen.getByText("add in a"));
  await waitFor(() => expect(c.host.calls.filter((call) => call.method === "POST")).toHaveLength(1));
  await pause(20);
  return c;
}

describe("optimistic update (onMutate: cancelQueries + setQueryData) while a refresh another tab joined is in flight", () => {
  it("the shared request goes on for the tab that joined it (one request), and its answer, sent before the set, leaves the optimistic list shown; onSettled's invalidation then shows the server's list in both", async () => {
    const c = await mutateWhileSharedRefreshRuns();
    expect(text("a")).toBe("999");
    expect(gets(c)).toHaveLength(2);
    expect(gets(c)[1]!.aborted).toBe(false);
    gets(c)[1]!.respond(200, { n: 1 }); // read before the mutation
    await waitFor(() => expect(text("b")).toBe("1"));
    await pause(30);
    expect(text("a")).toBe("999");
    expect(gets(c)).toHaveLength(2);
    c.host.calls.find((call) => call.method === "POST")!.respond(201, { ok: true });
    await waitFor(() => expect(gets(c)).toHaveLength(3));
    gets(c)[2]!.respond(200, { n: 999 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["999", "999"]));
    expect(gets(c)).toHaveLength(3);
  });

  it("the mutation fails: onError rolls back to the snapshot, onSettled's invalidation sends one request and both tabs show its answer", async () => {
    const c = await mutateWhileSharedRefreshRuns();
    gets(c)[1]!.respond(200, { n: 1 });
    await waitFor(() => expect(text("b")).toBe("1"));
    c.host.calls.find((call) => call.method === "POST")!.respond(500, "down");
    await waitFor(() => expect(text("a")).toBe("1"));
    await waitFor(() => expect(gets(c)).toHaveLength(3));
    gets(c)[2]!.respond(200, { n: 2 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
    expect(gets(c)).toHaveLength(3);
    expect(gets(c).filter((call) => call.aborted)).toEqual([]);
  });
});

describe("invariant 11: a request kept past cancelQueries ends with the pane's interest", () => {
  function One({ store }: { store: SharedFetchStoreWithExtras }) {
    const q = useQuery(sharedQueryOptions<List>(store, URL_A));
    return <span data-testid="one">{q.data ? String(q.data.n) : q.status}</span>;
  }

  function mountOne(store: SharedFetchStoreWithExtras) {
    const client = new QueryClient();
    return { client, view: render(app(store, <One store={store} />, client)) };
  }

  it("behind a hung host: cancelQueries keeps it, the invalidation that follows aborts it and sends its own at once, and an unmount aborts that one", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => undefined;
    const { client, view } = mountOne(c.stores[0]!);
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    await act(() => client.cancelQueries());
    await pause(20);
    expect(c.host.calls[0]!.aborted).toBe(false);
    act(() => void client.invalidateQueries());
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    expect(c.host.calls[0]!.aborted).toBe(true);
    view.unmount();
    await waitFor(() => expect(c.host.calls[1]!.aborted).toBe(true));
    expect(c.host.calls).toHaveLength(2);
  });

  it("cancelQueries before the store is in sync (nothing claimed yet): nothing is sent, as TanStack cancelled the fetch", async () => {
    const doc = new Y.Doc();
    let synced!: () => void;
    registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    const host = new Host();
    host.auto = () => ({ status: 200, body: { n: 1 } });
    const store = createSharedFetchStore({ doc, fetch: host.fetch, locks: null, settleMs: 0 });
    onTestFinished(() => store.destroy());
    const { client } = mountOne(store);
    await waitFor(() => expect(client.getQueryCache().getAll()[0]?.state.fetchStatus).toBe("fetching"));
    await act(() => client.cancelQueries());
    await act(async () => synced());
    await pause(30);
    expect(host.calls).toHaveLength(0);
  });

  it("cancelQueries, then the pane unmounts: the kept request is aborted at the network", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => undefined;
    const { client, view } = mountOne(c.stores[0]!);
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    await act(() => client.cancelQueries());
    view.unmount();
    await waitFor(() => expect(c.host.calls[0]!.aborted).toBe(true));
    expect(c.host.calls).toHaveLength(1);
  });
});
