// @vitest-environment jsdom
/**
 * The QueryClient's methods and managers on sharedQueryOptions, side by side with the same calls on
 * a plain query function of the same host: fetchQuery / prefetchQuery / ensureQueryData / query()
 * retry nothing unless told and decide by their own staleTime; retries wait while offline; an
 * invalidation is not undone by an older result another replica recorded.
 */
import { focusManager, onlineManager, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, SharedFetchProvider } from "../../src/index.ts";
import { cluster, URL_A, type Cluster } from "../harness/replicas.ts";
import { pause, PREFIX, text, twoPanesShowingOne } from "../harness/two-panes.tsx";

afterEach(() => {
  cleanup();
  onlineManager.setOnline(true);
  focusManager.setFocused(undefined);
});

type Item = { n: number };
const PLAIN = `${URL_A}/plain`;

function plainFn(c: Cluster) {
  return async ({ signal }: { signal: AbortSignal }) => {
    const response = await c.host.fetch(PLAIN, { signal });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return (await response.json()) as Item;
  };
}
const callsTo = (c: Cluster, url: string) => c.host.calls.filter((call) => call.url === url).length;

describe("fetchQuery / prefetchQuery / ensureQueryData do not retry by default (TanStack: retry false unless set)", () => {
  for (const method of ["fetchQuery", "prefetchQuery", "ensureQueryData", "query"] as const) {
    it(`${method}: a failing host is asked once, as with a plain query function`, async () => {
      const c = cluster(1, { settleMs: 0 });
      c.host.auto = () => ({ status: 500, body: "down" });
      // A short delay so that retries, if any, happen within the test.
      const client = new QueryClient({ defaultOptions: { queries: { retryDelay: 5 } } });
      const call = (o: object) => (client[method] as (o: object) => Promise<unknown>)(o).catch(() => "failed");
      await call({ queryKey: ["plain"], queryFn: plainFn(c) });
      await call(sharedQueryOptions<Item>(c.stores[0]!, URL_A));
      await new Promise((r) => setTimeout(r, 100));
      expect(callsTo(c, PLAIN)).toBe(1);
      expect(callsTo(c, URL_A)).toBe(callsTo(c, PLAIN));
    });
  }
});

function Pane({ name, options }: { name: string; options: object }) {
  const q = useQuery(options as never) as { data?: Item };
  return <span data-testid={name}>{q.data ? String(q.data.n) : "none"}</span>;
}

describe("fetchQuery with a staleTime shorter than a mounted observer's (TanStack fetches: its own staleTime says stale)", () => {
  it("fetchQuery({ ...items, staleTime: 0 }) while useQuery(items, staleTime 60 s) is mounted sends a request and resolves with the new data", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const client = new QueryClient();
    const store = c.stores[0]!;
    const items = sharedQueryOptions<Item>(store, URL_A, { staleTime: 60_000 });
    const plain = { queryKey: ["plain"], queryFn: plainFn(c), staleTime: 60_000 };
    render(
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={store}>
          <Pane name="shared" options={items} />
          <Pane name="plain" options={plain} />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect([screen.getByTestId("shared").textContent, screen.getByTestId("plain").textContent]).not.toContain("none"));
    await new Promise((r) => setTimeout(r, 5));
    const plainData = await act(() => client.fetchQuery({ ...plain, staleTime: 0 }));
    const sharedData = await act(() => client.fetchQuery({ ...items, staleTime: 0 }));
    expect(callsTo(c, PLAIN)).toBe(2);
    expect(callsTo(c, URL_A)).toBe(2);
    expect(plainData.n).toBeGreaterThan(1);
    expect(sharedData.n).toBeGreaterThan(2);
  });
});

describe("retries and the online manager (networkMode 'online': TanStack pauses retries while offline)", () => {
  it("a request that fails while the browser is offline waits to retry, never errors, and succeeds once online, as with a plain query function", async () => {
    const c = cluster(1, { settleMs: 0 });
    let failing = true;
    c.host.auto = () => undefined;
    const stop = c.host.onCall((call) => {
      if (call.settled) return;
      if (failing) queueMicrotask(() => call.fail(new TypeError("Failed to fetch")));
      else queueMicrotask(() => call.respond(200, { n: 1 }));
    });
    const client = new QueryClient({ defaultOptions: { queries: { retryDelay: 5, retry: 3 } } });
    const store = c.stores[0]!;
    const states: Record<string, string[]> = { plain: [], shared: [] };
    function Probe({ name, options }: { name: string; options: object }) {
      const q = useQuery(options as never) as { data?: Item; fetchStatus: string; status: string };
      states[name]!.push(`${q.status}/${q.fetchStatus}`);
      return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
    }
    const shared = sharedQueryOptions<Item>(store, URL_A);
    // The first attempt is under way when the connection drops.
    render(
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={store}>
          <Probe name="plain" options={{ queryKey: ["plain"], queryFn: plainFn(c) }} />
          <Probe name="shared" options={shared} />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    act(() => onlineManager.setOnline(false));
    await act(() => new Promise((r) => setTimeout(r, 200)));
    // Both wait for the connection, and say so as TanStack does (the claim stands meanwhile).
    expect(client.getQueryState(["plain"])?.fetchStatus).toBe("paused");
    expect(client.getQueryState(shared.queryKey)?.fetchStatus).toBe("paused");
    expect(states.shared!.at(-1)).toBe("pending/paused");
    failing = false;
    await act(async () => onlineManager.setOnline(true));
    await waitFor(() => expect([screen.getByTestId("plain").textContent, screen.getByTestId("shared").textContent]).toEqual(["1", "1"]));
    // Offline, neither showed an error; the retries resumed once online, fetching again.
    expect(states.shared!.filter((s) => s.startsWith("error"))).toEqual([]);
    expect(states.plain!.filter((s) => s.startsWith("error"))).toEqual([]);
    expect(states.shared).toContain("pending/fetching");
    expect(states.shared!.at(-1)).toBe("success/idle");
    stop();
  });
});

describe("an invalidation is not undone by a result requested before it", () => {
  it("tab A invalidates (refetchType 'none') while tab B's refetch is in flight; B's answer (sent before) reaches A, which must stay stale and refetch on its next focus", async () => {
    const { c, clientA, clientB } = await twoPanesShowingOne();
    // B refetches; the request is under way (it reads the server's state as of now).
    void clientB.refetchQueries({ queryKey: PREFIX });
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    await pause(5);
    // Meanwhile a mutation in A changed the server: A marks its list stale.
    await act(() => clientA.invalidateQueries({ queryKey: PREFIX, refetchType: "none" }));
    const queryA = clientA.getQueryCache().findAll({ queryKey: PREFIX })[0]!;
    expect(queryA.isStale()).toBe(true);
    // B's answer, for a request sent before the mutation.
    c.host.calls[1]!.respond(200, { n: 2 });
    await waitFor(() => expect(text("b")).toBe("2"));
    await pause(20);
    // Plain TanStack: A's query stays invalidated (nothing newer than the invalidation arrived).
    expect({ shown: text("a"), stale: queryA.isStale() }).toEqual({ shown: expect.any(String), stale: true });
    // So A's next focus refetches.
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    await act(async () => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    await pause(30);
    expect(c.host.calls).toHaveLength(3);
  });

  it("tab A's optimistic update (cancelQueries, setQueryData) is not replaced by tab B's result for a request sent before it; A's invalidation then shows the server's data", async () => {
    const { c, clientA, clientB } = await twoPanesShowingOne();
    void clientB.refetchQueries({ queryKey: PREFIX }); // sent before A's mutation
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    await pause(5);
    const [queryA] = clientA.getQueryCache().findAll({ queryKey: PREFIX });
    await act(async () => {
      await clientA.cancelQueries({ queryKey: PREFIX }); // useMutation's onMutate, as TanStack's recipe has it
      clientA.setQueryData(queryA!.queryKey, { n: 999 });
    });
    c.host.calls[1]!.respond(200, { n: 1 }); // B's answer arrives while the mutation is in flight
    await waitFor(() => expect(text("b")).toBe("1"));
    await pause(30);
    expect(text("a")).toBe("999"); // plain TanStack keeps the optimistic data until the next fetch
    c.host.auto = () => ({ status: 200, body: { n: 2 } });
    await act(() => clientA.invalidateQueries({ queryKey: PREFIX })); // onSettled
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
  });

  for (const method of ["invalidateQueries", "resetQueries"] as const) {
    it(`tab A's ${method} after a mutation, while tab B's refetch (sent before it) is in flight: A sends its own request and shows the data after the mutation, as TanStack's cancel-and-refetch does`, async () => {
      const { c, clientA, clientB } = await twoPanesShowingOne();
      void clientB.refetchQueries({ queryKey: PREFIX }); // reads the server as it is before the mutation
      await waitFor(() => expect(c.host.calls).toHaveLength(2));
      // The mutation commits on the server; A invalidates (useMutation's onSuccess).
      const done = act(() => clientA[method]({ queryKey: PREFIX }));
      await pause(20);
      c.host.calls[1]!.respond(200, { n: 1 }); // B's, with the list before the mutation
      await waitFor(() => expect(c.host.calls).toHaveLength(3)); // A's own: B's was not joined
      c.host.calls[2]!.respond(200, { n: 2 });
      await done;
      await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
      expect(c.host.calls).toHaveLength(3);
    });
  }
});
