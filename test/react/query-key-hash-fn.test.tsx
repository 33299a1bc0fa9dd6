// @vitest-environment jsdom
/**
 * A query's own `queryKeyHashFn` (TanStack's option, e.g. to hash keys holding class instances)
 * hashes its key otherwise than the client's default: another replica's result must still reach
 * that query, not a second entry made beside it under the default hash.
 */
import { hashKey, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  SharedFetchProvider,
  sharedQueryOptions,
  useSharedFetch,
  useSharedFetchStore,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
type Item = { n: number };
const queryKeyHashFn = (key: readonly unknown[]) => `custom:${hashKey(key)}`;

function app(store: SharedFetchStoreWithExtras, client: QueryClient, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

function HookPane({ log }: { log: unknown[] }) {
  log.push(useSharedFetch<Item>(URL_A, { staleTime: 60_000, queryKeyHashFn }).data);
  return null;
}

function UseQueryPane({ log }: { log: unknown[] }) {
  log.push(useQuery({ ...sharedQueryOptions<Item>(useSharedFetchStore(), URL_A, { staleTime: 60_000 }), queryKeyHashFn }).data);
  return null;
}

describe("README, 'Other replicas' results reach TanStack's own hooks too': with the query's own queryKeyHashFn", () => {
  for (const [name, Pane] of [
    ["useSharedFetch", HookPane],
    ["useQuery(sharedQueryOptions) spread with it", UseQueryPane],
  ] as const)
    it(`${name}: tab A's refetch shows in tab B with no request of B's, and B's cache holds one entry`, async () => {
      useFakeClock();
      const c = cluster(2, { settleMs: 0 });
      const [a, b] = c.stores;
      let n = 0;
      c.host.auto = () => ({ status: 200, body: { n: ++n } });
      const client = new QueryClient();
      const log: unknown[] = [];
      render(app(b!, client, <Pane log={log} />));
      await advance(100);
      expect(log.at(-1)).toEqual({ n: 1 });
      await act(async () => void a!.refetch({ url: URL_A }));
      await advance(100);
      expect(c.host.calls).toHaveLength(2);
      expect(log.at(-1)).toEqual({ n: 2 });
      expect(
        client
          .getQueryCache()
          .getAll()
          .map((q) => q.queryHash.slice(0, 7)),
      ).toEqual(["custom:"]);
    });
});
