// @vitest-environment jsdom
/**
 * useSharedFetch as a TanStack Query citizen: the same render sequence as plain useQuery with the
 * same options, a shared readable query key, invalidation and mutations shared across replicas,
 * retries inside the claim.
 */
import {
  QueryClient,
  QueryClientProvider,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type UseQueryResult,
} from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { Boundary } from "../harness/boundary.tsx";
import { afterEach, describe, expect, it } from "vitest";
import {
  sharedMutationFn,
  sharedQueryKey,
  sharedQueryOptions,
  SharedFetchProvider,
  useSharedFetch,
  useSharedFetchStore,
  type SharedFetchStoreWithExtras,
  type UseSharedFetchOptions,
} from "../../src/index.ts";
import { cluster, URL_A, type Cluster } from "../harness/replicas.ts";

afterEach(cleanup);
type Item = { n: number };
type Row = { status: string; fetchStatus: string; data: unknown; isPlaceholderData: boolean; isError: boolean };
const row = (q: UseQueryResult<unknown, unknown>): Row => ({
  status: q.status,
  fetchStatus: q.fetchStatus,
  data: q.data,
  isPlaceholderData: q.isPlaceholderData,
  isError: q.isError,
});
const dedupe = (log: Row[]) => log.filter((r, i) => i === 0 || JSON.stringify(r) !== JSON.stringify(log[i - 1]));

function app(store: SharedFetchStoreWithExtras, client: QueryClient, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <Boundary show={() => <span data-testid="caught">caught</span>}>{node}</Boundary>
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** Renders plain useQuery (its own fetch of the same host) and useSharedFetch with `options`; returns both logs. */
async function sideBySide(
  c: Cluster,
  options: UseSharedFetchOptions<Item, unknown>,
  requests: number,
): Promise<{ plain: Row[]; shared: Row[] }> {
  const plain: Row[] = [];
  const shared: Row[] = [];
  const plainFetch = async () => {
    const response = await c.host.fetch(`${URL_A}/plain`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return (await response.json()) as Item;
  };
  function Plain() {
    plain.push(row(useQuery({ queryKey: ["plain"], queryFn: plainFetch, ...options, retry: false } as never)));
    return null;
  }
  function Shared() {
    const r = useSharedFetch<Item, unknown>(URL_A, { ...options, retry: false });
    shared.push(row(r));
    return null;
  }
  render(
    <>
      {app(c.stores[0]!, new QueryClient(), <Plain />)}
      {app(c.stores[0]!, new QueryClient(), <Shared />)}
    </>,
  );
  await waitFor(() => expect(c.host.calls.length).toBe(requests));
  await act(() => new Promise((r) => setTimeout(r, 50)));
  expect(c.host.calls.length).toBe(requests);
  return { plain: dedupe(plain), shared: dedupe(shared) };
}

describe("the same render sequence as plain useQuery with the same options", () => {
  const cases: [string, UseSharedFetchOptions<Item, unknown>, number][] = [
    ["select", { select: (d: Item) => d.n * 10 }, 200],
    ["placeholderData", { placeholderData: { n: -1 } }, 200],
    ["initialData (stale, refetched on mount)", { initialData: { n: 0 }, staleTime: 0 }, 200],
    ["initialData (fresh: no fetch)", { initialData: { n: 0 }, staleTime: 60_000 }, 200],
    ["throwOnError", { throwOnError: true }, 500],
  ];
  for (const [name, options, status] of cases) {
    it(name, async () => {
      const c = cluster(1, { settleMs: 0 });
      c.host.auto = () => ({ status, body: status === 200 ? { n: 7 } : "down" });
      // Each fetches once, except with fresh initialData, where neither does.
      const { plain, shared } = await sideBySide(c, options, name.includes("fresh") ? 0 : 2);
      expect(shared).toEqual(plain);
      if (status === 500) expect(screen.getAllByTestId("caught")).toHaveLength(2);
      c.destroy();
    });
  }
});

describe("the query key", () => {
  it("is readable, prefix-friendly, the same in every replica of one identity, and holds no secret (invariant 13)", () => {
    const c = cluster(2, { settleMs: 0, identity: "alice" });
    const [a, b] = c.stores;
    const secretReq = { url: `${URL_A}?token=s3cret`, headers: { authorization: "Bearer hunter2" } };
    const ka = sharedQueryOptions(a!, secretReq).queryKey;
    expect(ka).toEqual(sharedQueryOptions(b!, secretReq).queryKey);
    expect(ka.slice(0, 3)).toEqual(["shared-fetch", "GET", URL_A]);
    expect(JSON.stringify(ka)).not.toMatch(/s3cret|hunter2|alice/);
    const bob = cluster(1, { settleMs: 0, identity: "bob" }).stores[0]!;
    expect(sharedQueryKey(bob, secretReq)[3]).not.toBe(ka[3]);
    expect(sharedQueryOptions(a!, URL_A, { queryKey: ["mine", 1] }).queryKey).toEqual(["mine", 1]);
    c.destroy();
  });

  it("a relative URL resolves against the page's location: the key holds the absolute URL", () => {
    const c = cluster(1, { settleMs: 0 });
    const key = sharedQueryOptions(c.stores[0]!, "/api/items?x=1").queryKey;
    expect(key.slice(0, 3)).toEqual(["shared-fetch", "GET", new URL("/api/items", location.href).href]);
    c.destroy();
  });
});

/** Two replicas, each its own QueryClient and pane, showing `url`. */
function twoPanes(c: Cluster, options?: UseSharedFetchOptions<Item>) {
  const clients = [new QueryClient(), new QueryClient()];
  function Pane({ name }: { name: string }) {
    const q = useSharedFetch<Item>(URL_A, options);
    const text = q.isSuccess ? String(q.data.n) : q.status; // isSuccess narrows data to Item
    return <span data-testid={name}>{`${text}${q.isFetchingAnywhere ? " (fetching anywhere)" : ""}`}</span>;
  }
  render(
    <>
      {app(c.stores[0]!, clients[0]!, <Pane name="a" />)}
      {app(c.stores[1]!, clients[1]!, <Pane name="b" />)}
    </>,
  );
  return clients;
}

describe("shared across replicas", () => {
  it("invalidateQueries in one replica → exactly one request, and every replica shows the new data", async () => {
    const c = cluster(2, { settleMs: 0 });
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    const [clientA] = twoPanes(c, { staleTime: 60_000 });
    await waitFor(() => expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual(["1", "1"]));
    expect(c.host.calls).toHaveLength(1);
    await act(() => clientA!.invalidateQueries({ queryKey: ["shared-fetch", "GET", URL_A] }));
    await waitFor(() => expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual(["2", "2"]));
    await act(() => new Promise((r) => setTimeout(r, 30)));
    expect(c.host.calls).toHaveLength(2);
    c.destroy();
  });

  it("mutation pattern: useMutation + sharedMutationFn (Idempotency-Key) + invalidation → one refetch, every replica updated", async () => {
    const c = cluster(2, { settleMs: 0 });
    let n = 0;
    c.host.auto = (call) => ({ status: 200, body: call.method === "POST" ? { ok: true } : { n: ++n } });
    function Add() {
      const store = useSharedFetchStore();
      const client = useQueryClient();
      const add = useMutation({
        mutationFn: sharedMutationFn(store, (name: string) => ({ url: URL_A, method: "POST", body: JSON.stringify({ name }) })),
        onSuccess: () => client.invalidateQueries({ queryKey: ["shared-fetch", "GET", URL_A] }),
      });
      return <button onClick={() => add.mutate("x")}>add</button>;
    }
    const [clientA] = twoPanes(c, { staleTime: 60_000 });
    render(app(c.stores[0]!, clientA!, <Add />));
    await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("1"));
    await act(async () => screen.getByText("add").click());
    await waitFor(() => expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual(["2", "2"]));
    await act(() => new Promise((r) => setTimeout(r, 30)));
    expect(c.host.calls.map((call) => call.method)).toEqual(["GET", "POST", "GET"]);
    expect(c.host.calls[1]!.headers["idempotency-key"]).toMatch(/^[0-9a-f]{64}\.1\.[0-9a-f-]{36}$/);
    c.destroy();
  });

  it("retries run inside the claim: the other replica stays pending; one sequence of attempts; TanStack itself gets retry: false", async () => {
    const c = cluster(2, { settleMs: 0 });
    let calls = 0;
    c.host.auto = () => (++calls <= 2 ? { status: 503, body: "busy" } : { status: 200, body: { n: 9 } });
    const seenB: string[] = [];
    const observer = new MutationObserver(() => seenB.push(screen.getByTestId("b").textContent ?? ""));
    const clients = twoPanes(c, { retry: 2, retryDelay: 20 });
    observer.observe(document.body, { subtree: true, characterData: true, childList: true });
    await waitFor(() => expect([screen.getByTestId("a").textContent, screen.getByTestId("b").textContent]).toEqual(["9", "9"]));
    observer.disconnect();
    expect(c.host.calls).toHaveLength(3);
    expect(seenB.filter((t) => t.startsWith("error"))).toEqual([]);
    // TanStack's own retryer retried nothing: each fetch runs with retry false (the query's options
    // keep yours, so that fetchQuery's "no retry unless set" still reads them).
    for (const query of clients.flatMap((client) => client.getQueryCache().getAll())) expect(query.state.fetchFailureCount).toBe(0);
    expect(sharedQueryOptions(c.stores[0]!, URL_A, { retry: 5 }).retry).toBe(5);
    c.destroy();
  });
});

describe("sharedQueryOptions works unchanged with TanStack's client methods and useQueries", () => {
  it("ensureQueryData / getQueryData / fetchQuery and useQueries share one cache entry and one request", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { n: 4 } });
    const client = new QueryClient();
    const options = sharedQueryOptions<Item>(c.stores[0]!, URL_A, { staleTime: 60_000 });
    const data: Item = await client.ensureQueryData(options); // typed through the DataTag key
    expect(data).toEqual({ n: 4 });
    expect(client.getQueryData(options.queryKey)).toEqual({ n: 4 });
    expect(await client.fetchQuery(options)).toEqual({ n: 4 });
    function Many() {
      const [one] = useQueries({ queries: [options] });
      return <span data-testid="many">{one.isSuccess ? one.data.n : "-"}</span>;
    }
    render(app(c.stores[0]!, client, <Many />));
    await waitFor(() => expect(screen.getByTestId("many").textContent).toBe("4"));
    expect(c.host.calls).toHaveLength(1);
    c.destroy();
  });
});
