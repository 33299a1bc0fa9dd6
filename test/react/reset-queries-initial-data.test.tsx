// @vitest-environment jsdom
/**
 * resetQueries on a shared query given your own initialData: TanStack puts the query back to that
 * initialData and refetches it once. So does a shared query, unless a replica recorded a result
 * after the initialData's date: that result is newer, and shows as it would at any other moment
 * (the bridge puts newer results over initialData), while the one refetch runs. Either way the
 * tab ends on the refetch's answer, with one request.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";
import { pause, PREFIX } from "../harness/two-panes.tsx";

afterEach(cleanup);
type Item = { n: number };

/** Tab B shows URL_A with initialData { n: 0 }, after tab A recorded { n: 1 } (older than B's initialData). */
async function tabBWithInitialData() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 50 });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  await a.ensure({ url: URL_A });
  const client = new QueryClient();
  const shown: string[] = [];
  function Pane() {
    const q = useQuery(sharedQueryOptions<Item>(b, URL_A, { staleTime: 60_000, initialData: { n: 0 } }));
    shown.push(q.data ? String(q.data.n) : q.status);
    return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
  }
  await pause(5); // the initialData is dated after A's result
  render(app(b, <Pane />, client));
  await pause(50);
  expect(shown).toEqual(["0"]);
  return { c, a, client, shown };
}

describe("resetQueries on a query with initialData: back to it (or to a newer recorded result), then one refetch", () => {
  it("nothing recorded since the initialData: the pane shows it again, then the refetch's answer; one request", async () => {
    const { c, client, shown } = await tabBWithInitialData();
    c.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 50 });
    await act(() => client.resetQueries({ queryKey: PREFIX }));
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("2"));
    expect(shown.slice(1)).not.toContain("1");
    expect(c.host.calls).toHaveLength(2);
  });

  it("another tab recorded a result after the initialData: the reset shows that one, never the initialData, then the refetch's", async () => {
    const { c, a, client, shown } = await tabBWithInitialData();
    await act(() => a.refetch({ url: URL_A }));
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("2"));
    shown.length = 0;
    await act(() => client.resetQueries({ queryKey: PREFIX }));
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("3"));
    expect(shown).not.toContain("0");
    expect(c.host.calls).toHaveLength(3);
    expect(client.getQueryCache().findAll({ queryKey: PREFIX })[0]?.state.isInvalidated).toBe(false);
  });
});
