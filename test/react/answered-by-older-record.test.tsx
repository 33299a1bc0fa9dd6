// @vitest-environment jsdom
/**
 * README, "Freshness is judged on the recorded result's age": `dataUpdatedAt` is the writer's `at`
 * for results other replicas recorded. That holds too when the query function itself is answered
 * by such a result (a poll's mount met by another tab's recent result, a fetchQuery met by one
 * within its staleTime), where TanStack dates whatever a query function returns "now": the data
 * must not look younger here than it is, or staleTime judges it fresh for longer than it is.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);
type Item = { n: number };
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

/** Tab A records a result; 300 ms later tab B (its own store and QueryClient) asks. */
async function recordedBeforeB() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  await a.ensure({ url: URL_A });
  const at = a.resultInfo({ url: URL_A })!.at!;
  await pause(300);
  return { c, b, at, client: new QueryClient() };
}

describe("a query function answered by another replica's earlier result dates the data by its writer's `at`", () => {
  it("a polled useQuery mounting within the poll window: no request, dataUpdatedAt is tab A's `at`, not the mount's time", async () => {
    const { c, b, at, client } = await recordedBeforeB();
    const seen: number[] = [];
    function Pane() {
      const q = useQuery(sharedQueryOptions<Item>(b, URL_A, { refetchInterval: 10_000 }));
      seen.push(q.dataUpdatedAt);
      return <span data-testid="b">{`${q.data?.n}/${q.fetchStatus}`}</span>;
    }
    render(
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={b}>
          <Pane />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("1/idle"));
    expect(c.host.calls).toHaveLength(1);
    expect(seen.at(-1)).toBe(at);
  });

  it("fetchQuery({ staleTime: 30 s }) over an older cached copy, met by tab A's result: resolves with it, dated by its `at`, so it goes stale when A's result does", async () => {
    const { c, b, at, client } = await recordedBeforeB();
    const items = sharedQueryOptions<Item>(b, URL_A);
    // What this tab showed a minute ago (the list's page was left, its query kept in the cache).
    client.setQueryData(items.queryKey, { n: 0 }, { updatedAt: Date.now() - 60_000 });
    const data = await client.fetchQuery({ ...items, staleTime: 30_000 });
    expect(data).toEqual({ n: 1 });
    expect(c.host.calls).toHaveLength(1);
    const state = client.getQueryState(items.queryKey)!;
    expect(state.dataUpdatedAt).toBe(at);
    // 300 ms old: stale by a 200 ms staleTime, as A's result is.
    expect(client.getQueryCache().find({ queryKey: items.queryKey })!.isStaleByTime(200)).toBe(true);
  });
});
