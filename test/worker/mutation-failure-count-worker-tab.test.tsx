// @vitest-environment jsdom
/**
 * A SharedWorker tab's useMutation through the claim's retries (README, sharedMutationFn's `retry`):
 * `failureCount` rises 1, 2 while the worker retries, and the error counts 3, as in a tab with a
 * replica of its own (test/react/mutation-failure-count.test.tsx) and as useMutation's own retries.
 * Before, the tab read 0 until the error, which counted 1. Every state the mutation takes is logged
 * (the mutation cache's events), not only those a render caught. Real ports, docs and stores;
 * FakeLocks; the sim's host.
 */
import { QueryClient, QueryClientProvider, useMutation } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedMutationFn } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/worker-mutation-failure-count";

afterEach(cleanup);

for (const [what, retry] of [
  ["retry: 2, retryDelay: 5 (data: the worker runs both)", { retry: 2, retryDelay: 5 }],
  ["retry: (n) => n < 2 (the worker asks the tab)", { retry: (n: number) => n < 2, retryDelay: 5 }],
] as const)
  it(`${what}: failureCount 0, 1, 2, then 3 with the error`, async () => {
    const host = new Host();
    host.auto = () => ({ status: 503, body: "busy" });
    const store = browser(host).tab();
    const client = new QueryClient();
    const seen: string[] = [];
    client.getMutationCache().subscribe(({ mutation }) => {
      const s =
        mutation && `${mutation.state.status} ${mutation.state.failureCount} ${mutation.state.failureReason?.message.slice(0, 8) ?? "-"}`;
      if (s && seen.at(-1) !== s) seen.push(s);
    });
    const post = sharedMutationFn(store, () => ({ url: API, method: "POST", body: "{}" }), retry);
    let mutate!: () => void;
    function Pane() {
      mutate = useMutation({ mutationFn: post }).mutate;
      return null;
    }
    render(
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={store}>
          <Pane />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    act(() => mutate());
    await waitFor(() => expect(seen.at(-1)).toMatch(/^error/));
    expect(host.calls).toHaveLength(3);
    expect(seen).toEqual(["idle 0 -", "pending 0 -", "pending 1 HTTP 503", "pending 2 HTTP 503", "error 3 HTTP 503"]);
  });
