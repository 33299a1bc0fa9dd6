// @vitest-environment jsdom
/**
 * useSuspenseInfiniteQuery over sharedInfiniteQueryOptions in two tabs of one browser, each page a
 * GET to a real HTTP server on 127.0.0.1 that counts what it is sent: both tabs suspend on one
 * request of the first page; a page one tab loads is one request for both; a tab mounted later
 * shows the recorded chain (maxPages at most) at its first render; a failed first page reaches
 * both tabs' boundaries and their resets ask it once; a failed next page keeps the pages shown.
 */
import { QueryClient, useSuspenseInfiniteQuery } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { StrictMode, Suspense, type ReactNode } from "react";
import { describe, expect, it, vi } from "vitest";
import { type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { ResetBoundary } from "../harness/boundary.tsx";
import { feedPanes, pagesText, serveFeed } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { pause, text, twoTabs } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 3 });
const { seen, count } = server;
const { feed } = feedPanes(server, { retry: false });

function Feed({ store, name, maxPages }: { store: SharedFetchStoreWithExtras; name: string; maxPages?: number | undefined }) {
  const q = useSuspenseInfiniteQuery(feed(store, { maxPages }));
  return (
    <>
      <span data-testid={name}>{`${pagesText(q)} ${q.fetchStatus}${q.error ? " error" : ""}`}</span>
      <button onClick={() => void q.fetchNextPage()}>{`more ${name}`}</button>
    </>
  );
}

function Resettable({ name, children }: { name: string; children: ReactNode }) {
  return (
    <ResetBoundary
      show={(_, reset) => (
        <button data-testid={name} onClick={reset}>
          caught
        </button>
      )}
    >
      <Suspense fallback={<span data-testid={name}>loading</span>}>{children}</Suspense>
    </ResetBoundary>
  );
}

const pane = (store: SharedFetchStoreWithExtras, name: string, maxPages?: number, client?: QueryClient) =>
  app(
    store,
    <Resettable name={name}>
      <Feed store={store} name={name} maxPages={maxPages} />
    </Resettable>,
    client,
  );
/**
 * What requests and their answers lead to in the tabs: up to 5 s, not waitFor's default second. A
 * suspended pane is revealed no sooner than 300 ms after its fallback (500 ms on React 18), and on
 * a loaded machine the page's way through tab a's fetch and the doc to both tabs took the rest.
 */
const until = (check: () => void) => waitFor(check, { timeout: 5_000 });
/**
 * Each tab's feed has its pane's observer: the revealed panes' effects ran. React 18 runs them in a
 * task after the commit that shows the pages, and StrictMode's second mount there drops the feed's
 * last observer for a moment, which cancels a fetchNextPage already running and reverts its page
 * (TanStack's own behavior for a query function that reads its signal, plain queries' too).
 */
const observers = (client: QueryClient) =>
  client
    .getQueryCache()
    .getAll()
    .map((q) => q.getObserversCount());
const observed = (...clients: QueryClient[]) => until(() => expect(clients.map(observers)).toEqual(clients.map(() => [1])));
const more = (...names: string[]) => act(() => names.forEach((n) => fireEvent.click(screen.getByText(`more ${n}`))));

describe("useSuspenseInfiniteQuery(sharedInfiniteQueryOptions) across tabs", () => {
  it("both tabs suspend on one request of the first page; the next page one tab loads is taken by the other, unsent; StrictMode leaves no claim", async () => {
    const [a, b] = twoTabs();
    const clients = [new QueryClient(), new QueryClient()];
    server.held = [];
    const view = render(
      <StrictMode>
        {pane(a, "a", undefined, clients[0])}
        {pane(b, "b", undefined, clients[1])}
      </StrictMode>,
    );
    await until(() => expect(seen).toHaveLength(1));
    await pause(50);
    expect([text("a"), text("b")]).toEqual(["loading", "loading"]);
    server.release();
    server.held = null;
    await until(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    await observed(...clients);
    await more("a");
    await until(() => expect(text("a")).toBe("0@1 1@1 idle"));
    // As plain useInfiniteQuery: the other tab shows its own pages until it asks for the next.
    expect(text("b")).toBe("0@1 idle");
    await more("b");
    await until(() => expect(text("b")).toBe("0@1 1@1 idle"));
    expect([count("/feed?cursor=0"), count("/feed?cursor=1")]).toEqual([1, 1]);
    view.unmount();
    await pause(20);
    expect([a.claims(), b.claims()]).toEqual([[], []]);
  });

  it("a tab mounted later shows the recorded chain from the first page, maxPages at most, at its first render, with no request", async () => {
    const [a, b] = twoTabs();
    render(pane(a, "a", 2));
    await until(() => expect(text("a")).toBe("0@1 idle"));
    await more("a");
    await until(() => expect(text("a")).toBe("0@1 1@1 idle"));
    await more("a");
    await until(() => expect(text("a")).toBe("1@1 2@1 idle"));
    render(pane(b, "b", 2));
    expect(text("b")).toBe("0@1 1@1 idle");
    await pause(50);
    expect(seen).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=2"]);
  });

  it("a failed first page reaches both tabs' boundaries; both resets ask it once", async () => {
    const [a, b] = twoTabs();
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    server.failOnce.add("/feed?cursor=0");
    render(
      <>
        {pane(a, "a")}
        {pane(b, "b")}
      </>,
    );
    await until(() => expect([text("a"), text("b")]).toEqual(["caught", "caught"]));
    fireEvent.click(screen.getByTestId("a"));
    fireEvent.click(screen.getByTestId("b"));
    await until(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    await pause(50);
    expect(count("/feed?cursor=0")).toBe(2);
    quiet.mockRestore();
  });

  it("a failed next page keeps the pages shown (status error, no boundary), as useSuspenseInfiniteQuery does; the other tab asks it anew", async () => {
    const [a, b] = twoTabs();
    render(
      <>
        {pane(a, "a")}
        {pane(b, "b")}
      </>,
    );
    await until(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    server.failOnce.add("/feed?cursor=1");
    await more("a");
    await until(() => expect(text("a")).toBe("0@1 idle error"));
    expect(text("b")).toBe("0@1 idle");
    await more("b");
    await until(() => expect(text("b")).toBe("0@1 1@1 idle"));
    expect(count("/feed?cursor=1")).toBe(2);
  });
});
