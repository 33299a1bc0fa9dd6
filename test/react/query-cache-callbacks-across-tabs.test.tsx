// @vitest-environment jsdom
/**
 * TanStack's global callbacks (`new QueryCache({ onSuccess, onError, onSettled })`, the
 * toast-on-error recipe) with a request shared by two tabs: each tab's callbacks fire once per
 * fetch its query function ran, the tab that sent the request and a tab whose fetch joined it
 * alike; a result that reaches a tab that was not fetching (another tab's refetch) is set into its
 * cache as setQueryData would, which fires none, and another tab's error never reaches it (errors
 * are per replica). README, "Coming from TanStack Query".
 */
import { QueryCache, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";
import { PREFIX, text } from "../harness/two-panes.tsx";

afterEach(cleanup);

type Item = { n: number };
const WAIT = { timeout: 10_000 };

function tab(store: SharedFetchStoreWithExtras, name: string, seen: string[]) {
  const client = new QueryClient({
    queryCache: new QueryCache({
      onSuccess: (data) => seen.push(`success ${(data as Item).n}`),
      onError: (error) => seen.push(`error ${(error as { status?: number }).status}`),
      onSettled: () => seen.push("settled"),
    }),
  });
  function Shown() {
    const q = useQuery(sharedQueryOptions<Item>(store, URL_A, { staleTime: 60_000, retry: 0 }));
    return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
  }
  const node = (
    <QueryClientProvider client={client}>
      <Shown />
    </QueryClientProvider>
  );
  return { client, node };
}

describe("QueryCache onSuccess / onError / onSettled across tabs (toast-on-error)", () => {
  it("fire once per fetch in the tab that sent the request and in the tab that joined it; a result or error of another tab's refetch fires none", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = () => undefined;
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = tab(c.stores[0]!, "a", seenA);
    const b = tab(c.stores[1]!, "b", seenB);
    render(
      <>
        {a.node}
        {b.node}
      </>,
    );
    // Both mount at once: one request, which fails; each tab's onError once (its fetch joined it).
    await waitFor(() => expect(c.host.calls).toHaveLength(1), WAIT);
    c.host.calls[0]!.respond(500, { oops: true });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["error", "error"]), WAIT);
    expect(seenA).toEqual(["error 500", "settled"]);
    expect(seenB).toEqual(["error 500", "settled"]);

    // Tab A refetches and succeeds: tab B gets the result, as setQueryData would give it (no callback).
    act(() => void a.client.invalidateQueries({ queryKey: PREFIX }));
    await waitFor(() => expect(c.host.calls).toHaveLength(2), WAIT);
    c.host.calls[1]!.respond(200, { n: 2 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]), WAIT);
    expect(seenA.slice(2)).toEqual(["success 2", "settled"]);
    expect(seenB).toEqual(["error 500", "settled"]);

    // Tab A refetches and fails: its toast only; tab B keeps its data and fetched nothing.
    act(() => void a.client.invalidateQueries({ queryKey: PREFIX }));
    await waitFor(() => expect(c.host.calls).toHaveLength(3), WAIT);
    c.host.calls[2]!.respond(503, { oops: true });
    await waitFor(() => expect(seenA.slice(4)).toEqual(["error 503", "settled"]), WAIT);
    await act(() => new Promise((r) => setTimeout(r, 300)));
    expect(seenB).toEqual(["error 500", "settled"]);
    expect(text("b")).toBe("2");
    expect(c.host.calls).toHaveLength(3);
  }, 60_000);
});
