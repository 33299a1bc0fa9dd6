// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query": `refetchOnMount`, `refetchOnWindowFocus` and
 * `refetchOnReconnect: "always"` fetch on that event whatever the data's age, as TanStack does,
 * however fresh the result another replica recorded; K tabs mounting at once still send one.
 */
import { focusManager, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras, type UseSharedFetchOptions } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
});

function Pane({ name, options }: { name: string; options: UseSharedFetchOptions<{ n: number }> }) {
  const { data } = useSharedFetch<{ n: number }>(URL_A, options);
  return <span data-testid={name}>{data ? data.n : "-"}</span>;
}

const pane = (store: SharedFetchStoreWithExtras, name: string, options: UseSharedFetchOptions<{ n: number }>) => (
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <Pane name={name} options={options} />
    </SharedFetchProvider>
  </QueryClientProvider>
);

function counting() {
  const c = cluster(3, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  return c;
}

describe('refetchOnMount / refetchOnWindowFocus / refetchOnReconnect: "always" (README, Coming from TanStack Query)', () => {
  it('a tab mounting with refetchOnMount: "always" fetches although another replica recorded a fresh result; without it, it does not', async () => {
    const c = counting();
    await c.stores[0]!.ensure({ url: URL_A });
    render(pane(c.stores[1]!, "fresh", { staleTime: 60_000 }));
    await waitFor(() => expect(screen.getByTestId("fresh").textContent).toBe("1"));
    await act(() => new Promise((r) => setTimeout(r, 30)));
    expect(c.host.calls).toHaveLength(1);
    render(pane(c.stores[2]!, "always", { staleTime: 60_000, refetchOnMount: "always" }));
    await waitFor(() => expect(screen.getByTestId("always").textContent).toBe("2"));
    expect(c.host.calls).toHaveLength(2);
  });

  it('refetchOnMount: "always" in StrictMode: a later mount fetches too, though its first subscription\'s fetch was cancelled and started again by its second', async () => {
    const c = counting();
    const client = new QueryClient();
    const strict = (name: string) => (
      <StrictMode>
        <QueryClientProvider client={client}>
          <SharedFetchProvider store={c.stores[1]!}>
            <Pane name={name} options={{ staleTime: 60_000, refetchOnMount: "always" }} />
          </SharedFetchProvider>
        </QueryClientProvider>
      </StrictMode>
    );
    render(strict("first"));
    await waitFor(() => expect(screen.getByTestId("first").textContent).toBe("1"));
    cleanup();
    render(strict("again"));
    await waitFor(() => expect(screen.getByTestId("again").textContent).toBe("2"));
  });

  it('two tabs mounting at once with refetchOnMount: "always" send one request', async () => {
    const c = counting();
    await c.stores[0]!.ensure({ url: URL_A });
    render(
      <>
        {pane(c.stores[1]!, "a", { staleTime: 60_000, refetchOnMount: "always" })}
        {pane(c.stores[2]!, "b", { staleTime: 60_000, refetchOnMount: "always" })}
      </>,
    );
    await waitFor(() => expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual(["2", "2"]));
    await act(() => new Promise((r) => setTimeout(r, 30)));
    expect(c.host.calls).toHaveLength(2);
  });

  it('a focus with refetchOnWindowFocus: "always" fetches while the data is fresh; with the default, it does not', async () => {
    const c = counting();
    render(
      <>
        {pane(c.stores[0]!, "default", { staleTime: 60_000 })}
        {pane(c.stores[1]!, "always", { staleTime: 60_000, refetchOnWindowFocus: "always" })}
      </>,
    );
    await waitFor(() => expect([screen.getByTestId("default").textContent, screen.getByTestId("always").textContent]).toEqual(["1", "1"]));
    expect(c.host.calls).toHaveLength(1);
    act(() => focusManager.setFocused(false));
    act(() => focusManager.setFocused(true));
    await waitFor(() => expect(screen.getByTestId("always").textContent).toBe("2"));
    // The other tab shows the new result too (it reaches every replica), without asking for it.
    await waitFor(() => expect(screen.getByTestId("default").textContent).toBe("2"));
    expect(c.host.calls).toHaveLength(2);
  });
});
