// @vitest-environment jsdom
/**
 * resetQueries on a shared query: TanStack puts the query back to the state it was made with, whose
 * data is its initialData, and for a shared query that is the result recorded when the query was
 * made (stale-while-revalidate). That result may be revisions older than what the tab showed: the
 * list went back in time while the refetch ran (plain useQuery shows no data then, never older
 * data). The query now takes what the store holds at the reset, and one request follows.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);
type Item = { n: number };
const PREFIX = ["shared-fetch", "GET", URL_A];
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

/** Tab B shows what tab A records: A's first result when B's query is made, then A's two refetches. */
async function tabBShowingThird() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  await a.ensure({ url: URL_A });
  const client = new QueryClient();
  const shown: string[] = [];
  function Pane() {
    const q = useQuery(sharedQueryOptions<Item>(b, URL_A, { staleTime: 60_000 }));
    shown.push(q.data ? String(q.data.n) : q.status);
    return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
  }
  const pane = (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={b}>
        <Pane />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
  const view = render(pane);
  expect(screen.getByTestId("b").textContent).toBe("1");
  await act(() => a.refetch({ url: URL_A }));
  await act(() => a.refetch({ url: URL_A }));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("3"));
  return { c, a, client, shown, view, pane };
}

describe("resetQueries never shows a result older than the one the store holds at the reset", () => {
  it("an active query: refetched once, showing the third result meanwhile, not the first", async () => {
    const { c, client, shown } = await tabBShowingThird();
    c.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 100 });
    shown.length = 0;
    await act(() => client.resetQueries({ queryKey: PREFIX }));
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("4"));
    expect(shown).not.toContain("1");
    expect(c.host.calls).toHaveLength(4);
  });

  it("an inactive query, reset while tab A refetched: its next mount shows A's latest result at once, with no request", async () => {
    const { c, a, client, shown, view, pane } = await tabBShowingThird();
    view.unmount();
    await a.refetch({ url: URL_A });
    await act(() => client.resetQueries({ queryKey: PREFIX }));
    shown.length = 0;
    render(pane);
    await pause(50);
    expect(shown[0]).toBe("4");
    expect(shown).not.toContain("1");
    expect(c.host.calls).toHaveLength(4);
  });
});
