// @vitest-environment jsdom
/**
 * useProgram and sharedProgramOptions take TanStack's `retry` / `retryDelay` as useSharedFetch
 * does (README, "Coming from TanStack Query": retries run inside the claim): yours, else the
 * client's defaults, else TanStack's (3 in a browser); fetchQuery / prefetchQuery retry nothing
 * unless told. The claimant re-resolves while its claim stands: a pane of another replica stays
 * pending through the retries, shows the claim's failure count, and never shows the failure that
 * was retried as an error.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchError, SharedFetchProvider, sharedProgramOptions, useProgram, type UseProgramOptions } from "../../src/index.ts";
import { MAIN, serveFlakyProgram } from "../harness/flaky-program.ts";
import { cluster, type Cluster } from "../harness/replicas.ts";

type Seen = { status: string; failureCount: number; error: unknown; fetching: boolean };

function Pane({ id, log, options }: { id: string; log: Seen[]; options?: UseProgramOptions }) {
  const q = useProgram(MAIN, options);
  log.push({ status: q.status, failureCount: q.failureCount, error: q.error, fetching: q.isFetchingAnywhere });
  return <span data-testid={id}>{q.status}</span>;
}

function mount(c: Cluster, i: number, client: QueryClient, log: Seen[], options?: UseProgramOptions) {
  return render(
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={c.stores[i]!}>
        <Pane id={`pane-${i}`} log={log} {...(options ? { options } : {})} />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
}

afterEach(cleanup);

describe("useProgram's retry runs inside the claim (README: retries run inside the claim)", () => {
  it(
    "retry: 2 re-resolves after a failed module; another replica's pane stays pending, neither pane ever shows an error (both show failureCount 1 during the claimant's retry)",
    { timeout: 20_000 },
    async () => {
      const c = cluster(2, { settleMs: 0 });
      const helperCalls = serveFlakyProgram(c.host, 1);
      const a: Seen[] = [];
      const b: Seen[] = [];
      mount(c, 0, new QueryClient(), a, { retry: 2, retryDelay: 2000 });
      await waitFor(() => expect(helperCalls()).toBe(1));
      // B mounts during A's pause before its retry (wide on a busy machine): it joins A's claim.
      mount(c, 1, new QueryClient(), b, { retry: false });
      await waitFor(() => expect(screen.getByTestId("pane-0").textContent).toBe("success"), { timeout: 10_000 });
      await waitFor(() => expect(screen.getByTestId("pane-1").textContent).toBe("success"));
      expect(helperCalls()).toBe(2);
      expect([...a, ...b].every((s) => s.error === null)).toBe(true);
      expect(a.map((s) => s.failureCount).filter((n, i, all) => n !== all[i - 1])).toEqual([0, 1, 0]);
      // B joined A's claim after its failure: it shows the claim's count (1) until the result.
      expect(b.map((s) => s.failureCount).filter((n, i, all) => n !== all[i - 1])).toEqual([0, 1, 0]);
      expect(b.filter((s) => s.status === "pending").length).toBeGreaterThan(0);
    },
  );

  it("the client's default retry applies to programs (no retry option given); retryDelay's function is called by the claim", async () => {
    const c = cluster(1, { settleMs: 0 });
    const helperCalls = serveFlakyProgram(c.host, 2);
    const delays: number[] = [];
    const client = new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: (n) => (delays.push(n), 0) } } });
    const log: Seen[] = [];
    mount(c, 0, client, log);
    await waitFor(() => expect(screen.getByTestId("pane-0").textContent).toBe("success"));
    expect(helperCalls()).toBe(3);
    expect(delays).toEqual([0, 1]);
  });

  it("TanStack's default in a browser: 3 retries, then the error once (failureCount 1, 2, 3 through the retries, 4 with it, as TanStack counts)", async () => {
    const c = cluster(1, { settleMs: 0 });
    const helperCalls = serveFlakyProgram(c.host, Infinity);
    const client = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
    const log: Seen[] = [];
    mount(c, 0, client, log);
    await waitFor(() => expect(screen.getByTestId("pane-0").textContent).toBe("error"));
    expect(helperCalls()).toBe(4);
    const last = log.at(-1)!;
    expect(last.error).toBeInstanceOf(SharedFetchError);
    expect((last.error as SharedFetchError).status).toBe(503);
    expect([...new Set(log.map((s) => s.failureCount))]).toEqual([0, 1, 2, 3, 4]);
  });

  it("prefetchQuery(sharedProgramOptions(…)) retries nothing unless told, as TanStack's; with retry: 1 it re-resolves once", async () => {
    const c = cluster(1, { settleMs: 0 });
    const helperCalls = serveFlakyProgram(c.host, 1);
    const client = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
    const store = c.stores[0]!;
    const error = await client.fetchQuery(sharedProgramOptions(store, MAIN)).catch((e: unknown) => e);
    expect((error as SharedFetchError).status).toBe(503);
    expect(helperCalls()).toBe(1);
    serveFlakyProgram(c.host, 1);
    client.clear();
    const data = await client.fetchQuery({ ...sharedProgramOptions(store, MAIN), retry: 1 });
    expect(data.files.map((f) => f.name)).toEqual(["/app/main.ts", "/app/helper.ts"]);
    expect(helperCalls()).toBe(3);
  });
});
