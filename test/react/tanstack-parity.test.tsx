// @vitest-environment jsdom
/**
 * Where useSharedFetch must behave as useQuery does for what a TanStack Query user writes every
 * day: a stable `refetch`, every way of disabling a query, TanStack's own `retry` / `retryDelay`
 * values, data set by the app, and an explicit `initialData: undefined`. Each case is checked
 * beside plain TanStack where TanStack decides it.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { useEffect, type ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  SharedFetchProvider,
  sharedQueryOptions,
  useProgram,
  useSharedFetch,
  useSharedFetchStore,
  type SharedFetchStoreWithExtras,
  type UseSharedFetchOptions,
} from "../../src/index.ts";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
type Item = { n: number };
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

function app(store: SharedFetchStoreWithExtras, client: QueryClient, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

describe("refetch keeps its identity for the component's life (TanStack binds it once per observer)", () => {
  it("useSharedFetch's refetch is one function across renders", async () => {
    useFakeClock();
    const c = cluster(1, { settleMs: 0 });
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    const seen = new Set<unknown>();
    let renders = 0;
    function Pane() {
      const q = useSharedFetch<Item>(URL_A);
      renders++;
      seen.add(q.refetch);
      return <span>{q.data?.n}</span>;
    }
    render(app(c.stores[0]!, new QueryClient(), <Pane />));
    await advance(50);
    expect(renders).toBeGreaterThan(1);
    expect(seen.size).toBe(1);
  });

  it("an effect that depends on refetch runs once, as with useQuery (a new refetch per render would loop it)", async () => {
    useFakeClock();
    const c = cluster(1, { settleMs: 0 });
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    const runs = { shared: 0, plain: 0 };
    function Shared() {
      const { data, refetch } = useSharedFetch<Item>(URL_A, { staleTime: 60_000 });
      useEffect(() => {
        if (++runs.shared < 20) void refetch();
      }, [refetch]);
      return <span>{data?.n}</span>;
    }
    function Plain() {
      const { data, refetch } = useQuery(sharedQueryOptions<Item>(useSharedFetchStore(), URL_A, { staleTime: 60_000 }));
      useEffect(() => {
        if (++runs.plain < 20) void refetch();
      }, [refetch]);
      return <span>{data?.n}</span>;
    }
    render(app(c.stores[0]!, new QueryClient(), <Plain />));
    await advance(200);
    cleanup();
    render(app(c.stores[0]!, new QueryClient(), <Shared />));
    await advance(200);
    expect(runs).toEqual({ shared: runs.plain, plain: 1 });
  });
});

describe("a disabled query never fetches on its own, even to finish work another replica abandoned", () => {
  // Replica A claims, its request hangs, and it crashes: after the lease its claim is stale. A
  // replica whose query is disabled must leave it (a subscriber of the key would take it over).
  beforeEach(() => useFakeClock());
  async function requestsAfterAbandon(pane: ReactNode, client = new QueryClient()): Promise<number> {
    const c = cluster(2, { settleMs: 0, leaseMs: 100 });
    const [a, b] = c.stores;
    void a!.ensure({ url: URL_A }).catch(() => {});
    await advance(10);
    expect(c.host.calls).toHaveLength(1);
    c.crash(a!);
    render(app(b!, client, pane));
    await advance(1_000);
    return c.host.calls.length;
  }
  const Pane = ({ options }: { options: UseSharedFetchOptions }) => (useSharedFetch(URL_A, options), null);

  it("enabled: false (control): no takeover", async () => {
    expect(await requestsAfterAbandon(<Pane options={{ enabled: false }} />)).toBe(1);
  });

  it("enabled: () => false", async () => {
    expect(await requestsAfterAbandon(<Pane options={{ enabled: () => false }} />)).toBe(1);
  });

  it("enabled: false in the client's defaults, and in setQueryDefaults for the key", async () => {
    expect(await requestsAfterAbandon(<Pane options={{}} />, new QueryClient({ defaultOptions: { queries: { enabled: false } } }))).toBe(1);
    cleanup();
    const client = new QueryClient();
    client.setQueryDefaults(["shared-fetch"], { enabled: false });
    expect(await requestsAfterAbandon(<Pane options={{}} />, client)).toBe(1);
  });

  it("subscribed: false (the observer stays off, as useQuery's option)", async () => {
    expect(await requestsAfterAbandon(<Pane options={{ subscribed: false }} />)).toBe(1);
  });

  it("useProgram with enabled: () => false subscribes to nothing in the store (with () => true it does)", async () => {
    const c = cluster(1, { settleMs: 0 });
    const store = c.stores[0]!;
    const subscribeProgram = vi.spyOn(store, "subscribeProgram");
    const Program = ({ on }: { on: boolean }) => (useProgram("https://api.example.test/app/main.js", { enabled: () => on }), null);
    render(app(store, new QueryClient(), <Program on={false} />));
    await act(async () => {});
    expect(subscribeProgram).not.toHaveBeenCalled();
    cleanup();
    render(app(store, new QueryClient(), <Program on={true} />));
    await act(async () => {});
    expect(subscribeProgram).toHaveBeenCalled();
  });

  it("the same replica with enabled: () => true takes the abandoned work over (the check can fail)", async () => {
    expect(await requestsAfterAbandon(<Pane options={{ enabled: () => true, retry: false }} />)).toBe(2);
  });
});

describe("TanStack's retry and retryDelay values mean what TanStack's retryer makes of them", () => {
  for (const [name, options, attempts] of [
    ["retry: -1 (never retried)", { retry: -1 }, 1],
    ["retry: NaN (never retried)", { retry: Number.NaN }, 1],
    ["retryDelay: -1 (a retry at once)", { retry: 1, retryDelay: -1 }, 2],
    ["retryDelay: NaN (a retry at once)", { retry: 1, retryDelay: Number.NaN }, 2],
  ] as const)
    it(`${name}: the request is sent, as with plain TanStack`, async () => {
      useFakeClock();
      const c = cluster(1, { settleMs: 0 });
      let plainCalls = 0;
      const failingOnce = (calls: number) => (calls === 1 ? { status: 500, body: "down" } : { status: 200, body: { n: calls } });
      c.host.auto = () => failingOnce(c.host.calls.length);
      const plain = new QueryClient()
        .fetchQuery({
          queryKey: ["plain"],
          queryFn: () => (++plainCalls === 1 ? Promise.reject(new Error("down")) : { n: plainCalls }),
          ...options,
        })
        .catch(() => "failed");
      const shared = new QueryClient().fetchQuery(sharedQueryOptions(c.stores[0]!, URL_A, options)).catch(() => "failed");
      await advance(10);
      await Promise.all([plain, shared]);
      expect(plainCalls).toBe(attempts);
      expect(c.host.calls).toHaveLength(attempts);
      expect(await shared).toEqual(await plain);
    });
});

it("setQueryData after this tab's own fetch is kept, even within the millisecond the fetch was asked (the bridge sets nothing back)", async () => {
  useFakeClock();
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  const client = new QueryClient();
  function Pane() {
    const q = useSharedFetch<Item>(URL_A, { staleTime: Infinity });
    return <span data-testid="pane">{q.data ? q.data.n : q.status}</span>;
  }
  render(app(c.stores[0]!, client, <Pane />));
  // The fake clock stands still: the result's `at` and TanStack's dataUpdatedAt are one millisecond.
  await advance(50);
  expect(screen.getByTestId("pane").textContent).toBe("1");
  const { queryKey } = sharedQueryOptions(c.stores[0]!, URL_A);
  act(() => void client.setQueryData<Item>(queryKey, { n: 42 }));
  await advance(50);
  expect(client.getQueryData(queryKey)).toEqual({ n: 42 });
  expect(screen.getByTestId("pane").textContent).toBe("42");
  expect(c.host.calls).toHaveLength(1);
});

it("an explicit initialData: undefined keeps the recorded result as the first render's data (stale-while-revalidate)", async () => {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  await c.stores[0]!.ensure({ url: URL_A });
  await act(async () => {});
  function Pane({ options }: { options: UseSharedFetchOptions<Item> }) {
    const q = useSharedFetch<Item>(URL_A, options);
    return <span data-testid="pane">{`${q.status}/${q.data?.n ?? "-"}`}</span>;
  }
  render(app(c.stores[1]!, new QueryClient(), <Pane options={{ staleTime: 60_000, initialData: undefined }} />));
  expect(screen.getByTestId("pane").textContent).toBe("success/1");
  expect(c.host.calls).toHaveLength(1);
});
