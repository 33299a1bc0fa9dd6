// @vitest-environment jsdom
/**
 * A SharedWorker tab's useInfiniteQuery through the claim's retries of a failing page (README,
 * "Retries run inside the claim"): the worker retries the page inside its claim, and the tab's feed
 * shows `failureCount` and `failureReason` rising at each failure, then the error with the last
 * attempt counted, as a plain useInfiniteQuery beside it shows its own retryer's. Every state each
 * query takes is logged (the query cache's events), not only those a render caught. Real ports,
 * docs and stores; FakeLocks; the sim's host answering 503 to every request.
 */
import { QueryClient, QueryClientProvider, useInfiniteQuery } from "@tanstack/react-query";
import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedInfiniteQueryOptions } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/worker-infinite-failure-count";

afterEach(cleanup);

const retries = [
  { what: "retry: 2, retryDelay: 5 (data: the worker runs both, the claim tells the tab)", options: { retry: 2, retryDelay: 5 } },
  { what: "retry: 2, retryDelay: () => 5 (the worker asks the tab for the delay)", options: { retry: 2, retryDelay: () => 5 } },
];
/** The first page failing, or the first answered and the next failing (fetchNextPage on a feed with data). */
const failing = [
  { page: "the first page", next: false },
  { page: "the next page", next: true },
];

for (const { what, options } of retries)
  for (const { page, next } of failing)
    it(`${what}, ${page} failing: the shared feed's failureCount and failureReason are the plain feed's, 0, 1, 2, then 3 with the error`, async () => {
      const host = new Host();
      // Cursor 0 answers while only the next page fails; any other page fails with 503.
      host.auto = (call) => (next && call.url.endsWith("cursor=0") ? { status: 200, body: { items: [0] } } : { status: 503, body: "busy" });
      const store = browser(host).tab();
      const plainFetch = host.fetchAs("plain");
      const client = new QueryClient();
      const seen: Record<string, string[]> = { shared: [], plain: [] };
      client.getQueryCache().subscribe(({ query }) => {
        const { fetchFailureCount: n, fetchFailureReason: reason } = query.state;
        const log = seen[query.queryKey[0] === "plain" ? "plain" : "shared"]!;
        // The shared feed's reason is the SharedFetchError of the last failure (its HTTP status), the plain one's its own.
        const line = `${n} ${reason ? ("status" in reason ? reason.status : 503) : "-"}`;
        if (log.at(-1) !== line) log.push(line);
      });
      const statuses: Record<string, string> = {};
      const feeds: Record<string, { fetchNextPage: () => Promise<unknown> }> = {};
      const getNextPageParam = (_last: unknown, all: unknown[]) => (next && all.length < 2 ? all.length : null);
      function Shared() {
        const pages = { initialPageParam: 0, getNextPageParam, ...options };
        const q = useInfiniteQuery(sharedInfiniteQueryOptions(store, (cursor: number) => `${API}?cursor=${cursor}`, pages));
        statuses["shared"] = q.status;
        feeds["shared"] = q;
        return null;
      }
      function Plain() {
        const q = useInfiniteQuery({
          queryKey: ["plain"],
          queryFn: async ({ pageParam }) => {
            const res = await plainFetch(`${API}/plain?cursor=${pageParam}`);
            if (!res.ok) throw new Error(`HTTP ${res.status}`);
            return res.json();
          },
          initialPageParam: 0,
          getNextPageParam,
          ...options,
        });
        statuses["plain"] = q.status;
        feeds["plain"] = q;
        return null;
      }
      render(
        <QueryClientProvider client={client}>
          <SharedFetchProvider store={store}>
            <Shared />
            <Plain />
          </SharedFetchProvider>
        </QueryClientProvider>,
      );
      if (next) {
        await waitFor(() => expect(statuses).toEqual({ shared: "success", plain: "success" }));
        for (const log of Object.values(seen)) log.splice(0, log.length, "0 -");
        void feeds["shared"]!.fetchNextPage();
        void feeds["plain"]!.fetchNextPage();
      }
      await waitFor(() => expect(statuses).toEqual(next ? { shared: "success", plain: "success" } : { shared: "error", plain: "error" }));
      await waitFor(() => expect(seen["plain"]).toEqual(["0 -", "1 503", "2 503", "3 503"]));
      await waitFor(() => expect(seen["shared"]).toEqual(seen["plain"]));
      const failed = (from: (c: { from?: string | undefined }) => boolean) =>
        host.calls.filter((c) => from(c) && !(next && c.url.endsWith("cursor=0"))).length;
      expect({ shared: failed((c) => c.from !== "plain"), plain: failed((c) => c.from === "plain") }).toEqual({ shared: 3, plain: 3 });
    });
