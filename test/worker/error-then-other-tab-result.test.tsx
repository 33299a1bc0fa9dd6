// @vitest-environment jsdom
/**
 * Tab B's query ended in an error and its pane unmounted (an error boundary's fallback, a route
 * change); tab A then fetched the data. B's pane mounts again: TanStack's error state is stale, so
 * B asks, and A's newer result is the answer (errors are per replica; one request for both). A
 * SharedWorker tab no longer hears of a key it does not show: the error it kept is as of its last
 * answer (the pages of an infinite query are never subscribed to), and it took that for the
 * latest outcome and sent the request again.
 */
import { QueryClient, QueryClientProvider, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedInfiniteQueryOptions, sharedQueryOptions, useProgram, type SharedFetchStore } from "../../src/index.ts";
import { cluster } from "../harness/replicas.ts";
import type { BrowserStore } from "../../src/worker/connect-browser.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const API = "http://127.0.0.1:9/api/error-then-other-tab";
const PROGRAM = "http://127.0.0.1:9/app/error-then-other-tab.ts";
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

function Shown({ store }: { store: SharedFetchStore }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, API, { retry: false, staleTime: 60_000 }));
  return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
}

/** The same request as the first page of a feed (its pages are asked, never shown by subscription). */
function Feed({ store }: { store: SharedFetchStore }) {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, () => API, { initialPageParam: 0, getNextPageParam: () => null, retry: false, staleTime: 60_000 }),
  );
  return <span data-testid="b">{q.data ? String((q.data.pages[0] as { n: number }).n) : q.status}</span>;
}

/** A program at the same URL: the module answers `export const n = 2;`. */
function Code() {
  const q = useProgram(PROGRAM, { retry: false });
  return <span data-testid="b">{q.data ? (q.data.files[0]!.contents.match(/\d/)?.[0] ?? "?") : q.status}</span>;
}

let View: (props: { store: SharedFetchStore }) => ReactNode = Shown;

function pane(store: SharedFetchStore, client: QueryClient, on: boolean): ReactNode {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{on ? <View store={store} /> : <span data-testid="b">off</span>}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

async function remountAfterOtherTabsResult(host: Host, a: BrowserStore | SharedFetchStore, b: SharedFetchStore, program = false) {
  host.auto = () => ({ status: 500, body: {} });
  const client = new QueryClient();
  const view = render(pane(b, client, true));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("error"));
  view.rerender(pane(b, client, false));
  await pause(20);
  host.auto = () => (program ? { status: 200, text: "export const n = 2;\n" } : { status: 200, body: { n: 2 } });
  await (program ? (a as BrowserStore).refetchProgram({ url: PROGRAM }) : a.refetch({ url: API }));
  view.rerender(pane(b, client, true));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("2"));
  await pause(50);
  return host.calls.length;
}

describe("a query in error remounts after another tab fetched: that result answers it, no request", () => {
  it("per-tab store", async () => {
    const c = cluster(2, { settleMs: 0 });
    expect(await remountAfterOtherTabsResult(c.host, c.stores[0]!, c.stores[1]!)).toBe(2);
  });
  it("connectBrowser tab", async () => {
    const host = new Host();
    const b = browser(host);
    expect(await remountAfterOtherTabsResult(host, b.tab(), b.tab())).toBe(2);
  });
  it("connectBrowser tab, an infinite query's page", async () => {
    View = Feed;
    try {
      const host = new Host();
      const b = browser(host);
      expect(await remountAfterOtherTabsResult(host, b.tab(), b.tab())).toBe(2);
    } finally {
      View = Shown;
    }
  });
  it("connectBrowser tab, a program", async () => {
    View = Code;
    try {
      const host = new Host();
      const b = browser(host);
      expect(await remountAfterOtherTabsResult(host, b.tab(), b.tab(), true)).toBe(2);
    } finally {
      View = Shown;
    }
  });
});
