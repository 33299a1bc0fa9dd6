// @vitest-environment jsdom
/**
 * A request kept past cancelQueries (optimistic-update-across-tabs.test.tsx) goes on for the
 * panes that still observe the query and the tabs that joined it. A fetch of the query that is a
 * freshness demand (a window focus, a prefetch) joins it, as it joins any request in flight: one
 * request (invariant 11 ends a request only with the interest in it). Before, the fetch's start
 * dropped the hold at once, the request was aborted at the network and sent again a moment later.
 */
import { focusManager, QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { background, cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_A));
  return <span data-testid="a">{q.data ? String(q.data.n) : q.status}</span>;
}

const fetches = {
  "a window focus": (_client: QueryClient, _store: SharedFetchStoreWithExtras) =>
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    }),
  "a prefetchQuery": (client: QueryClient, store: SharedFetchStoreWithExtras) =>
    void client.prefetchQuery(sharedQueryOptions(store, URL_A)),
};

for (const [name, fetchAgain] of Object.entries(fetches))
  it(`cancelQueries keeps this tab's request that another tab joined; ${name} then joins it: one request, never aborted, its answer shown in both`, async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    c.host.auto = () => undefined;
    const client = new QueryClient();
    render(app(a, <Pane store={a} />, client));
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    const other = background(b.ensure({ url: URL_A }));
    await act(() => client.cancelQueries());
    await pause(20);
    fetchAgain(client, a);
    await pause(50);
    expect(c.host.calls.map((call) => call.aborted)).toEqual([false]);
    c.host.calls[0]!.respond(200, { n: 1 });
    await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("1"));
    expect((await other).data).toEqual({ n: 1 });
    expect(c.host.calls).toHaveLength(1);
  });
