// @vitest-environment jsdom
/**
 * A SharedWorker tab's useQuery through the claim's retries (README, "Retries run inside the
 * claim"): `failureCount` rises in the tab only where the worker asks the tab after a failure, that
 * is where `retry` or `retryDelay` is a function; where both are data (a count or `true`, a number
 * or the default delay) the worker runs them itself and the tab shows 0 until the error. Real
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
  { what: "retry: 2, retryDelay: 5 (data: the worker runs both)", options: { retry: 2, retryDelay: 5 }, counts: [0, 1] },
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
      const seen: number[] = [];
      let status = "";
      function Pane() {
        const q = useQuery({ ...sharedQueryOptions(store, API), ...options });
        if (seen.at(-1) !== q.failureCount) seen.push(q.failureCount);
        status = q.status;
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
      // Where the tab is not asked, the final error alone counts (TanStack's error action: 0 + 1).
      expect(seen).toEqual(counts);
    });
});
