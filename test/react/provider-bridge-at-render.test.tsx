// @vitest-environment jsdom
/**
 * SharedFetchProvider makes its bridge as it renders, so that its children's queries, made in the
 * same render before its effect holds the bridge, are read as TanStack hands them out (a feed's
 * first render shows a restored chain's failed page: feed-mounted-chain-failed-page). A render
 * React drops before committing it (a child that suspends on the first mount) must leave no bridge
 * behind reading the cache.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { Suspense } from "react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { readersOf } from "../../src/react/cache-reads.ts";
import { cluster } from "../harness/replicas.ts";

afterEach(cleanup);

it("a provider render never committed (its child suspends on the first mount) leaves no bridge reading the cache; its children saw one as they rendered", async () => {
  const [store] = cluster(1, { settleMs: 0 }).stores as [SharedFetchStoreWithExtras];
  const client = new QueryClient();
  const cache = client.getQueryCache();
  const seen: number[] = [];
  const never = new Promise<never>(() => {});
  function Suspends(): never {
    seen.push(readersOf(cache));
    throw never;
  }
  render(
    <QueryClientProvider client={client}>
      <Suspense fallback="loading">
        <SharedFetchProvider store={store}>
          <Suspends />
        </SharedFetchProvider>
      </Suspense>
    </QueryClientProvider>,
  );
  await act(async () => {});
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.every((readers) => readers === 1)).toBe(true);
  expect(readersOf(cache)).toBe(0);
});
