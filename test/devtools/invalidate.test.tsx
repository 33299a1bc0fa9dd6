// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { internalsOf } from "../../src/internals.ts";
import { sharedQueryKey } from "../../src/react/shared-query-options.ts";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

const req = { url: URL_A };
// Generous: jsdom renders on a loaded 2-core machine (no timing is asserted here).
const eventually = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });
const flush = () => act(async () => {});

afterEach(cleanup);

/** A host that answers every call at once with its number. */
function counting() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  return c;
}

function Pane({ name, staleTime }: { name: string; staleTime: number }) {
  const { data } = useSharedFetch<{ n: number }>(URL_A, { staleTime });
  return <span data-testid={`${name}-data`}>{data ? data.n : "none"}</span>;
}

function tab(store: SharedFetchStoreWithExtras, name: string, client: QueryClient, staleTime = 60_000) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <Pane name={name} staleTime={staleTime} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

function openDetails() {
  fireEvent.click(screen.getByRole("button", { name: /^Details of GET/ }));
  const details = screen.getByTestId("key-details");
  return {
    refetch: () => fireEvent.click(within(details).getByRole("button", { name: "refetch" })),
    invalidate: () => fireEvent.click(within(details).getByRole("button", { name: "invalidate" })),
    status: () => within(details).getByRole("status").textContent,
    // The panel renders batched (about 10 a second): its row may not show the result yet.
    ready: () => eventually(() => expect(within(details).getByRole("button", { name: "invalidate" })).toHaveProperty("disabled", false)),
  };
}

describe("devtools actions: refetch and invalidate are different things", () => {
  it("without a QueryClient: refetch asks the host now; invalidate asks nothing, yet every replica's next freshness demand fetches and B's cached query turns stale", async () => {
    const c = counting();
    const [a, b] = c.stores;
    const clientA = new QueryClient();
    const clientB = new QueryClient();
    // The panel outside any QueryClientProvider: it has no client, and works on the doc alone.
    render(
      <>
        {tab(a!, "a", clientA)}
        <SharedFetchDevtoolsPanel store={a!} />
      </>,
    );
    await eventually(() => expect(screen.getByTestId("a-data").textContent).toBe("1"));
    render(tab(b!, "b", clientB));
    await eventually(() => expect(screen.getByTestId("b-data").textContent).toBe("1"));
    const cached = (client: QueryClient) => client.getQueryCache().find({ queryKey: sharedQueryKey(a!, req), exact: true })!;
    expect(cached(clientA).isStale()).toBe(false);
    expect(cached(clientB).isStale()).toBe(false);
    // Fresh enough for a one-minute demand: no request.
    await act(() => b!.ensure(req, { maxAgeMs: 60_000 }));
    expect(c.host.calls).toHaveLength(1);

    await eventually(() => expect(screen.getAllByTestId("key-row")).toHaveLength(1));
    const details = openDetails();
    await details.ready();
    details.invalidate();
    await flush();
    expect(details.status()).toBe("Marked stale for every replica.");
    expect(c.host.calls).toHaveLength(1);
    // The outcome is kept, dated at the epoch: older than any demand (freshness.ts), on every replica.
    expect(b!.snapshot(req)).toMatchObject({ status: "success", data: { n: 1 } });
    expect(b!.resultInfo(req)).toEqual({ rev: 1, at: 0 });
    expect(a!.resultInfo(req)).toEqual({ rev: 1, at: 0 });
    await eventually(() => expect(cached(clientB).isStale()).toBe(true));
    expect(cached(clientA).isStale()).toBe(true);
    expect(screen.getByTestId("b-data").textContent).toBe("1");
    await act(() => b!.ensure(req, { maxAgeMs: 60_000 }));
    expect(c.host.calls).toHaveLength(2);
    expect(b!.resultInfo(req)?.rev).toBe(2);

    details.refetch();
    await flush();
    expect(details.status()).toBe("Refetch asked: a new revision is claimed now.");
    expect(c.host.calls).toHaveLength(3);
    await eventually(() => expect(screen.getByTestId("b-data").textContent).toBe("3"));
    expect(screen.getByTestId("a-data").textContent).toBe("3");
  }, 30_000);

  it("with the app's QueryClient (found through its provider): its active query of the key refetches now, an inactive one is only marked invalid", async () => {
    const c = counting();
    const [a] = c.stores;
    const client = new QueryClient();
    const other = `${URL_A}/other?page=2`;
    await act(() => client.prefetchQuery({ queryKey: sharedQueryKey(a!, { url: other }), queryFn: () => a!.ensure({ url: other }) }));
    render(
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={a!}>
          <Pane name="a" staleTime={60_000} />
        </SharedFetchProvider>
        <SharedFetchDevtoolsPanel store={a!} />
      </QueryClientProvider>,
    );
    await eventually(() => expect(screen.getByTestId("a-data").textContent).toBe("2"));
    expect(c.host.calls).toHaveLength(2);
    await eventually(() => expect(screen.getAllByTestId("key-row")).toHaveLength(2));

    fireEvent.click(screen.getByRole("button", { name: "Details of GET https://api.example.test/items" }));
    fireEvent.click(within(screen.getByTestId("key-details")).getByRole("button", { name: "invalidate" }));
    // invalidateQueries refetches the active query: a store refetch, one new revision for everyone.
    await eventually(() => expect(screen.getByTestId("a-data").textContent).toBe("3"));
    expect(c.host.calls).toHaveLength(3);
    expect(within(screen.getByTestId("key-details")).getByRole("status").textContent).toBe(
      "Marked stale for every replica; this tab's queries invalidated.",
    );
    expect(client.getQueryState(sharedQueryKey(a!, { url: other }))?.isInvalidated).toBe(false);

    // The inactive query (a query string in its URL: the label shows "?…"): invalidated, not fetched.
    const rows = screen.getAllByTestId("key-row");
    const otherRow = rows.find((r) => r.dataset.key === a!.keyOf({ url: other }))!;
    fireEvent.click(within(otherRow).getByRole("button", { name: /^Details of/ }));
    const details = screen.getAllByTestId("key-details").find((d) => d.textContent!.includes(a!.keyOf({ url: other })))!;
    fireEvent.click(within(details).getByRole("button", { name: "invalidate" }));
    await flush();
    expect(client.getQueryState(sharedQueryKey(a!, { url: other }))?.isInvalidated).toBe(true);
    expect(c.host.calls).toHaveLength(3);
  }, 30_000);

  it("a crashed replica refuses; nothing recorded and no client is a message", () => {
    const c = cluster(1);
    const [a] = c.stores;
    expect(invalidateKey(a!, "k")).toEqual({ ok: false, message: "Nothing is recorded for this key: nothing to mark stale." });
    internalsOf(a!).dev.crash();
    expect(invalidateKey(a!, "k")).toEqual({ ok: false, message: "This replica crashed (simulation): it writes nothing more." });
  });
});
