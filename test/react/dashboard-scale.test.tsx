// @vitest-environment jsdom
/**
 * A dashboard of many shared queries (useQueries over N sharedQueryOptions): what one query costs
 * must not grow with the number of queries on the page. TanStack's QueryCache.find hashes the key
 * of every query in the cache to compare it; each shared query function looked its query up that
 * way, so invalidating N queries scanned the cache N times (N² key hashes).
 */
import { QueryClient, useQueries } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

const url = (i: number) => `https://api.example.test/dashboard/${i}`;

function Dashboard({ store, n }: { store: SharedFetchStoreWithExtras; n: number }) {
  useQueries({ queries: Array.from({ length: n }, (_, i) => sharedQueryOptions(store, url(i))) });
  return null;
}

/** A dashboard of `n` shared queries in one tab, all shown; `answer: false` leaves the host hung. */
async function dashboard(n: number, answer = true) {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  c.host.auto = answer ? (call) => ({ status: 200, body: { url: call.url, n: call.n } }) : () => undefined;
  const client = new QueryClient();
  render(app(store, <Dashboard store={store} n={n} />, client));
  await waitFor(() => expect(c.host.calls).toHaveLength(n));
  // Bound before any spy: the test's own looks are not counted as the page's scans.
  const queries = client.getQueryCache().getAll.bind(client.getQueryCache());
  if (answer)
    await waitFor(() => expect(queries().every((q) => q.state.status === "success" && q.state.fetchStatus === "idle")).toBe(true));
  return { c, client, cache: client.getQueryCache(), queries };
}

describe("a dashboard of N shared queries: work per query, not per query squared", () => {
  it("invalidateQueries() of the whole dashboard scans the query cache as often for 100 queries as for 10 (each query function finds its own query without a scan)", async () => {
    const scans: number[] = [];
    for (const n of [10, 100]) {
      const { c, client, cache, queries } = await dashboard(n);
      const getAll = vi.spyOn(cache, "getAll");
      await act(() => client.invalidateQueries());
      await waitFor(() => expect(c.host.calls).toHaveLength(2 * n));
      await waitFor(() => expect(queries().every((q) => q.state.fetchStatus === "idle" && !q.state.isInvalidated)).toBe(true));
      scans.push(getAll.mock.calls.length);
      cleanup();
      c.destroy();
    }
    // TanStack's own: invalidateQueries finds the queries to invalidate, then those to refetch.
    expect(scans).toEqual([2, 2]);
  });
});
