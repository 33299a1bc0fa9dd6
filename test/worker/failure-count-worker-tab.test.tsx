// @vitest-environment jsdom
/**
 * A SharedWorker tab's useQuery through the claim's retries (README, "Retries run inside the
 * claim"): `failureCount` rises in the tab whether the worker asks the tab after a failure (`retry`
 * or `retryDelay` a function) or runs both by itself (data: a count or `true`, a number or the
 * default delay): then the tab reads the count the worker's claim records in the doc. Every state
 * the query takes is logged (the query cache's events), not only those a render caught. Real
 * ports, docs and stores; FakeLocks; the sim's host.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedQueryOptions } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/worker-failure-count";

afterEach(cleanup);

const cases = [
  {
    what: "retry: 2, retryDelay: 5 (data: the worker runs both, the claim tells the tab)",
    options: { retry: 2, retryDelay: 5 },
    counts: [0, 1, 2, 3],
  },
  {
    what: "retry: 2, retryDelay: () => 5 (the worker asks the tab for the delay)",
    options: { retry: 2, retryDelay: () => 5 },
    counts: [0, 1, 2, 3],
  },
  {
    what: "retry: (n) => n < 2, retryDelay: 5 (the worker asks the tab for the verdict)",
    options: { retry: (n: number) => n < 2, retryDelay: 5 },
    counts: [0, 1, 2, 3],
  },
];

describe("a SharedWorker tab's failureCount through the claim's retries", () => {
  for (const { what, options, counts } of cases)
    it(`${what}: failureCount ${counts.join(", ")}, the last with the error`, async () => {
      const host = new Host();
      host.auto = () => ({ status: 503, body: "busy" });
      const store = browser(host).tab();
      const client = new QueryClient();
      const seen: number[] = [0];
      client.getQueryCache().subscribe(({ query }) => {
        const count = query.state.fetchFailureCount;
        if (seen.at(-1) !== count) seen.push(count);
      });
      let status = "";
      function Pane() {
        status = useQuery({ ...sharedQueryOptions(store, API), ...options }).status;
        return null;
      }
      render(
        <QueryClientProvider client={client}>
          <SharedFetchProvider store={store}>
            <Pane />
          </SharedFetchProvider>
        </QueryClientProvider>,
      );
      await waitFor(() => expect(status).toBe("error"));
      expect(host.calls).toHaveLength(3);
      // The final error counts the last attempt (TanStack's error action: the count shown + 1).
      expect(seen).toEqual(counts);
    });
});
