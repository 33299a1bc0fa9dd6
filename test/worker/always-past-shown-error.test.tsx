// @vitest-environment jsdom
/**
 * A query with `refetchOnMount: "always"` (or focus/reconnect "always") fetches at each mount
 * whatever its data's age, as TanStack's does: a newer revision. Tab B shows an error for a key it
 * does not hear of (its pane unmounted); tab A then fetched the data. B's pane mounting again sends
 * one request in a per-tab store; in a SharedWorker tab the shown-error check answered it with A's
 * result from the worker and sent none. A plain mount (no "always") still takes A's result
 * (error-then-other-tab-result.test.tsx); explicit refetches: refetch-past-shown-error.test.tsx.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedQueryOptions, type SharedFetchStore } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const API = "http://127.0.0.1:9/api/always-past-shown-error";
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

function Shown({ store }: { store: SharedFetchStore }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, API, { retry: false, staleTime: 60_000, refetchOnMount: "always" }));
  return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
}

function pane(store: SharedFetchStore, client: QueryClient, on: boolean): ReactNode {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{on ? <Shown store={store} /> : <span data-testid="b">off</span>}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** The requests the host saw after A's result, for B's "always" mount; B then shows its answer. */
async function alwaysMountAfterOtherTabsResult(host: Host, a: SharedFetchStore, b: SharedFetchStore) {
  host.auto = () => ({ status: 500, body: {} });
  const client = new QueryClient();
  const view = render(pane(b, client, true));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("error"));
  view.rerender(pane(b, client, false));
  await pause(20);
  host.auto = () => ({ status: 200, body: { n: 2 } });
  await a.refetch({ url: API });
  const before = host.calls.length;
  host.auto = () => ({ status: 200, body: { n: 3 } });
  view.rerender(pane(b, client, true));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("3"));
  await pause(50);
  return host.calls.length - before;
}

describe('a refetchOnMount: "always" mount of a shown error after another tab\'s result sends one request', () => {
  it("per-tab store", async () => {
    const cl = cluster(2, { settleMs: 0 });
    expect(await alwaysMountAfterOtherTabsResult(cl.host, cl.stores[0]!, cl.stores[1]!)).toBe(1);
  });
  it("connectBrowser tab", async () => {
    const host = new Host();
    const b = browser(host);
    expect(await alwaysMountAfterOtherTabsResult(host, b.tab(), b.tab())).toBe(1);
  });
});
