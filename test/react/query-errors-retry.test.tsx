// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query":
 * - "`error` is a `SharedFetchError` (`message`, `status`)" and "Bad input becomes the query's
 *   error, never a throw": the query's error for bad input is a SharedFetchError naming the value
 *   and what was expected, its `cause` the store's SharedFetchInputError (which `store.ensure`
 *   still rejects with).
 * - "`retry` and `retryDelay` (yours, else the client's defaults, else TanStack's)": the client's
 *   defaults include those set for the query's key (`setQueryDefaults`), as TanStack merges them.
 */
import { QueryClient, QueryClientProvider, useMutation, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import {
  SharedFetchError,
  SharedFetchInputError,
  sharedMutationFn,
  sharedProgramOptions,
  sharedQueryOptions,
  SharedFetchProvider,
  useProgram,
  useSharedFetch,
} from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

const BAD = "ftp://example.test/items";

function expectInputError(error: unknown, names: RegExp) {
  expect(error).toBeInstanceOf(SharedFetchError);
  const e = error as SharedFetchError;
  expect(e.name).toBe("SharedFetchError");
  expect(e.status).toBeUndefined();
  expect(e.message).toMatch(names);
  expect(e.cause).toBeInstanceOf(SharedFetchInputError);
  expect((e.cause as Error).message).toBe(e.message);
}

describe("bad input: the query's error is a SharedFetchError (README: `error` is a `SharedFetchError`)", () => {
  it("an unsupported URL, through useQuery, useSharedFetch, useProgram, fetchQuery and a mutation; store.ensure still rejects with SharedFetchInputError", async () => {
    const c = cluster(1, { settleMs: 0 });
    const store = c.stores[0]!;
    const client = new QueryClient();
    const errors: Record<string, unknown> = {};
    function Panes() {
      errors.useQuery = useQuery(sharedQueryOptions(store, BAD)).error;
      errors.useSharedFetch = useSharedFetch(BAD).error;
      errors.useProgram = useProgram(BAD).error;
      const add = useMutation({ mutationFn: sharedMutationFn(store, () => BAD) });
      errors.mutation = add.error;
      return (
        <button data-testid="add" onClick={() => add.mutate()}>
          add
        </button>
      );
    }
    render(
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={store}>
          <Panes />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await act(async () => screen.getByTestId("add").click());
    await waitFor(() => expect(Object.values(errors).every((e) => e)).toBe(true));
    const named = /shared-fetch: (program )?url "ftp:\/\/example\.test\/items" has protocol ftp:.*http/;
    for (const e of Object.values(errors)) expectInputError(e, named);
    await expect(client.fetchQuery(sharedQueryOptions(store, BAD))).rejects.toSatisfy((e) => (expectInputError(e, named), true));
    await expect(client.fetchQuery(sharedProgramOptions(store, BAD))).rejects.toBeInstanceOf(SharedFetchError);
    await expect(store.ensure({ url: BAD })).rejects.toBeInstanceOf(SharedFetchInputError);
    expect(c.host.calls).toHaveLength(0);
  });

  it("a bad option the store refuses (leaseMs) is a SharedFetchError naming the option, the value and what was expected", async () => {
    const c = cluster(1, { settleMs: 0 });
    const client = new QueryClient();
    const error = await client.fetchQuery(sharedQueryOptions(c.stores[0]!, URL_A, { leaseMs: -5 })).catch((e: unknown) => e);
    expectInputError(error, /leaseMs must be a positive number.*got -5/);
    expect(c.host.calls).toHaveLength(0);
  });
});

describe("per-key retry defaults (README: `retry` and `retryDelay` … else the client's defaults)", () => {
  it("setQueryDefaults(key, { retry, retryDelay }) is used inside the claim, over the client's global defaults; an explicit option still wins", async () => {
    const c = cluster(1, { settleMs: 0 });
    const store = c.stores[0]!;
    c.host.auto = () => ({ status: 503, body: "busy" });
    const delays: number[] = [];
    const client = new QueryClient({ defaultOptions: { queries: { retry: 3, retryDelay: 0 } } });
    client.setQueryDefaults(["shared-fetch", "GET", URL_A], { retry: 1, retryDelay: (n) => (delays.push(n), 0) });
    const error = await client.fetchQuery(sharedQueryOptions(store, URL_A)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SharedFetchError);
    expect((error as SharedFetchError).status).toBe(503);
    expect(c.host.calls).toHaveLength(2); // 1 attempt + 1 retry (not the global 3)
    expect(delays).toEqual([0, 1]); // on each failure, the last one too, as TanStack's retryer asks it
    // Another key keeps the global defaults: 1 + 3 attempts.
    const other = `${URL_A}/other`;
    await client.fetchQuery(sharedQueryOptions(store, other)).catch(() => {});
    expect(c.host.calls.filter((call) => call.url === other)).toHaveLength(4);
    // The option given wins over both.
    client.clear();
    await client.fetchQuery(sharedQueryOptions(store, URL_A, { retry: 0, staleTime: 0 })).catch(() => {});
    expect(c.host.calls.filter((call) => call.url === URL_A)).toHaveLength(3);
  });
});

describe("a retry spread over sharedQueryOptions (`{ ...items, retry }`) runs in the claim too (README: TanStack itself is passed `retry: false`)", () => {
  it("useQuery({ ...items, retry: 1 }): one attempt and one retry at the host, failureCount 1 during the retry and 2 with the error (as TanStack counts), the client's retryDelay function called on each failure (the last too, as TanStack's retryer calls it), by the claim only", async () => {
    const c = cluster(1, { settleMs: 0 });
    const store = c.stores[0]!;
    c.host.auto = () => ({ status: 503, body: "busy" });
    const delays: number[] = [];
    const client = new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: (n) => (delays.push(n), 0) } } });
    const seen: { failureCount: number; error: unknown }[] = [];
    function Pane() {
      const q = useQuery({ ...sharedQueryOptions(store, URL_A), retry: 1 });
      seen.push({ failureCount: q.failureCount, error: q.error });
      return null;
    }
    render(
      <QueryClientProvider client={client}>
        <Pane />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(seen.at(-1)!.error).toBeInstanceOf(SharedFetchError));
    expect(c.host.calls).toHaveLength(2);
    expect(delays).toEqual([0, 1]); // on each failure, the last one too, as TanStack's retryer asks it
    expect([...new Set(seen.map((s) => s.failureCount))]).toEqual([0, 1, 2]);
  });
});
