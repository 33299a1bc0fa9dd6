// @vitest-environment jsdom
/**
 * Tab B shows an error for a key it does not hear of (an infinite query's pages are never
 * subscribed to; a query or program whose pane unmounted stops hearing); tab A then fetched the
 * data. An explicit refetch in B (an observer's `refetch()`, refetchQueries) asks anew, as
 * TanStack's does and a per-tab store's does (skipInFlight): exactly one request. The shown-error
 * check answered it with A's newer result from the worker, sending none. A mount still takes A's
 * result (error-then-other-tab-result.test.tsx).
 */
import { QueryClient, QueryClientProvider, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import {
  SharedFetchProvider,
  sharedInfiniteQueryOptions,
  sharedQueryKey,
  sharedQueryOptions,
  useProgram,
  type SharedFetchStore,
} from "../../src/index.ts";
import type { SharedFetchStoreWithExtras } from "../../src/core/store-extras.ts";
import type { BrowserStore } from "../../src/worker/connect-browser.ts";
import { cluster } from "../harness/replicas.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const API = "http://127.0.0.1:9/api/refetch-past-shown-error";
const PROGRAM = "http://127.0.0.1:9/app/refetch-past-shown-error.ts";
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

/** How the explicit refetch is made: the view's own button, or the client's refetchQueries. */
type Refetch = (client: QueryClient, store: SharedFetchStore) => Promise<unknown>;

function Shown({ store }: { store: SharedFetchStore }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, API, { retry: false, staleTime: 60_000 }));
  return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
}

function Feed({ store }: { store: SharedFetchStore }) {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, () => API, { initialPageParam: 0, getNextPageParam: () => null, retry: false, staleTime: 60_000 }),
  );
  return (
    <>
      <span data-testid="b">{q.data ? String((q.data.pages[0] as { n: number }).n) : q.status}</span>
      <button onClick={() => void q.refetch()}>refetch</button>
    </>
  );
}

function Code() {
  const q = useProgram(PROGRAM, { retry: false });
  return <span data-testid="b">{q.data ? (q.data.files[0]!.contents.match(/\d/)?.[0] ?? "?") : q.status}</span>;
}

type Case = { View: (props: { store: SharedFetchStore }) => ReactNode; unmount: boolean; refetch: Refetch; program?: boolean };

function pane(c: Case, store: SharedFetchStore, client: QueryClient, on: boolean): ReactNode {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{on ? <c.View store={store} /> : <span data-testid="b">off</span>}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** The requests the host saw after A's result, for B's explicit refetch. */
async function refetchAfterOtherTabsResult(c: Case, host: Host, a: BrowserStore | SharedFetchStoreWithExtras, b: SharedFetchStore) {
  host.auto = () => ({ status: 500, body: {} });
  const client = new QueryClient();
  const view = render(pane(c, b, client, true));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("error"));
  if (c.unmount) view.rerender(pane(c, b, client, false));
  await pause(20);
  host.auto = () => (c.program ? { status: 200, text: "export const n = 2;\n" } : { status: 200, body: { n: 2 } });
  await (c.program ? (a as BrowserStore).refetchProgram({ url: PROGRAM }) : a.refetch({ url: API }));
  const before = host.calls.length;
  host.auto = () => (c.program ? { status: 200, text: "export const n = 3;\n" } : { status: 200, body: { n: 3 } });
  await act(() => c.refetch(client, b));
  await pause(50);
  const sent = host.calls.length - before;
  // Its answer is what B shows (an unmounted pane, once it mounts again).
  if (c.unmount) view.rerender(pane(c, b, client, true));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("3"));
  return sent;
}

const byClient: Refetch = (client, store) => client.refetchQueries({ queryKey: sharedQueryKey(store, API) });
const CASES: [string, Case][] = [
  ["a query whose pane unmounted, refetchQueries", { View: Shown, unmount: true, refetch: byClient }],
  [
    "an infinite query's page, its refetch()",
    { View: Feed, unmount: false, refetch: async () => fireEvent.click(screen.getByText("refetch")) },
  ],
  [
    "a program whose pane unmounted, refetchQueries",
    { View: Code, unmount: true, program: true, refetch: (client) => client.refetchQueries({ queryKey: ["shared-fetch", "program"] }) },
  ],
];

describe("an explicit refetch of a shown error after another tab's result sends exactly one request", () => {
  for (const [name, c] of CASES) {
    it(`per-tab store: ${name}`, async () => {
      const cl = cluster(2, { settleMs: 0 });
      expect(await refetchAfterOtherTabsResult(c, cl.host, cl.stores[0]!, cl.stores[1]!)).toBe(1);
    });
    it(`connectBrowser tab: ${name}`, async () => {
      const host = new Host();
      const b = browser(host);
      expect(await refetchAfterOtherTabsResult(c, host, b.tab(), b.tab())).toBe(1);
    });
  }
});
