// @vitest-environment jsdom
/**
 * An explicit refetch (the hook's refetch(), a mutation's invalidateQueries) while this tab's own
 * earlier request is still in flight: TanStack cancels that fetch and runs the query function
 * again, asking for a revision past it. Nobody here wants the earlier request any more, so it is
 * aborted at the network (invariant 11) and the new one leaves at once, as with plain useQuery.
 * Before, the new request waited for the cancelled one to finish: behind a hung host, for ever.
 */
import { QueryClient, QueryClientProvider, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import {
  SharedFetchProvider,
  sharedMutationFn,
  useSharedFetch,
  useSharedFetchStore,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { cluster, URL_A, type Cluster } from "../harness/replicas.ts";

afterEach(cleanup);

type List = { n: number };
const PLAIN = `${URL_A}/plain`;
const text = (id: string) => screen.getByTestId(id).textContent;
/** The user clicks both refresh buttons (TanStack's refetch() cancels a fetch in flight). */
const refresh = () => ["refresh", "refresh plain"].forEach((name) => fireEvent.click(screen.getByText(name)));

function Panes({ c }: { c: Cluster }) {
  const shared = useSharedFetch<List>(URL_A, { staleTime: 60_000 });
  const plain = useQuery({
    queryKey: ["plain"],
    queryFn: async ({ signal }) => (await (await c.host.fetch(PLAIN, { signal })).json()) as List,
    staleTime: 60_000,
  });
  return (
    <>
      <span data-testid="shared">{`${shared.data?.n ?? "-"} ${shared.fetchStatus}`}</span>
      <span data-testid="plain">{`${plain.data?.n ?? "-"} ${plain.fetchStatus}`}</span>
      <button onClick={() => void shared.refetch()}>refresh</button>
      <button onClick={() => void plain.refetch()}>refresh plain</button>
    </>
  );
}

function tab(store: SharedFetchStoreWithExtras, client: QueryClient, node: React.ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

describe("invariant 11: a refetch past this tab's own request in flight aborts it and sends the new one at once", () => {
  it("refresh while the previous refresh hangs: the hung request is aborted and a new one sent, side by side with plain useQuery", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    render(tab(c.stores[0]!, new QueryClient(), <Panes c={c} />));
    await waitFor(() =>
      expect([text("shared"), text("plain")]).toEqual([expect.stringMatching(/^\d idle$/), expect.stringMatching(/^\d idle$/)]),
    );
    c.host.auto = undefined; // the host hangs
    refresh();
    await act(() => c.host.whenCalls(4));
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } }); // the next request is answered
    refresh();
    await act(() => c.host.whenCalls(6));
    const last = (path: string) => c.host.callsTo(path).at(-1)!.n;
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual([`${last("/items")} idle`, `${last("/items/plain")} idle`]));
    const states = (path: string) => c.host.callsTo(path).map((call) => call.state);
    expect(states("/items/plain")).toEqual(["answered", "aborted", "answered"]);
    expect(states("/items")).toEqual(states("/items/plain"));
  });

  it("useMutation's onSuccess invalidates while this tab's poll is in flight; another tab had joined that poll: both show the list after the mutation", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    let list = 1;
    c.host.auto = (call) => (call.method === "POST" ? (list++, { status: 201, body: { ok: true } }) : { status: 200, body: { n: list } });
    function Editor() {
      const client = useQueryClient();
      const mutation = useMutation({
        mutationFn: sharedMutationFn(useSharedFetchStore(), () => ({ url: `${URL_A}/add`, method: "POST", body: "{}" })),
        onSuccess: () => client.invalidateQueries({ queryKey: ["shared-fetch", "GET", URL_A] }),
      });
      return <button onClick={() => mutation.mutate()}>add</button>;
    }
    function Shown({ id }: { id: string }) {
      const q = useSharedFetch<List>(URL_A, { staleTime: 60_000 });
      return <span data-testid={id}>{q.data?.n ?? "-"}</span>;
    }
    const clientA = new QueryClient();
    render(
      <>
        {tab(a, clientA, [<Shown key="s" id="a" />, <Editor key="e" />])}
        {tab(b, new QueryClient(), <Shown id="b" />)}
      </>,
    );
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["1", "1"]));
    c.host.auto = undefined; // A's poll hangs; B's refetch joins it
    void clientA.refetchQueries({ queryKey: ["shared-fetch", "GET", URL_A] });
    await act(() => c.host.whenCalls(2));
    const joined = b.ensure({ url: URL_A }, { maxAgeMs: 0 });
    c.host.auto = (call) => (call.method === "POST" ? (list++, { status: 201, body: { ok: true } }) : { status: 200, body: { n: list } });
    fireEvent.click(screen.getByText("add"));
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
    await expect(joined).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(c.host.calls[1]!.state).toBe("aborted");
  });
});
