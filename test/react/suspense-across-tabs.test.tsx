// @vitest-environment jsdom
/**
 * useSuspenseQuery, useSuspenseQueries and the prefetch idioms over sharedQueryOptions in two tabs
 * of one browser, against a real HTTP server on 127.0.0.1 that counts what it is sent, beside
 * plain useSuspenseQuery where TanStack's own behaviour is the reference: one request per key
 * across the tabs, every tab that asked suspended on it (invariant 8: a hung host keeps them all
 * suspended), an error to every such tab's boundary and one request for their resets, an error
 * never over data shown (invariant 7), and StrictMode adding no request and leaving no claim.
 */
import { QueryClient, usePrefetchQuery, useSuspenseQueries, useSuspenseQuery } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import * as React from "react";
import { StrictMode, Suspense, type ReactNode } from "react";
import { describe, expect, it, vi } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { ResetBoundary } from "../harness/boundary.tsx";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";
import { browserTabs, pause, sideBySide, sideBySideServerForFile, text, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
const url = (path: string) => `${server.base}/s${path}`;
const release = () => server.held!.splice(0).forEach((answer) => answer());
const shown = (q: { status: string; data: Body; isFetching: boolean }) => `${q.status} ${q.data.n}${q.isFetching ? " fetching" : ""}`;

function Item({ store, id, path, staleTime }: { store: SharedFetchStoreWithExtras; id: string; path: string; staleTime?: number }) {
  const options = sharedQueryOptions<Body>(store, url(path), { retry: false, ...(staleTime === undefined ? {} : { staleTime }) });
  return <span data-testid={id}>{shown(useSuspenseQuery(options))}</span>;
}

/** The boundary's button resets TanStack's boundary and remounts the pane. */
function Resettable({ id, children }: { id: string; children: ReactNode }) {
  return (
    <ResetBoundary show={(e, reset) => <button data-testid={id} onClick={reset}>{`caught ${(e as Error).message.slice(0, 8)}`}</button>}>
      <Suspense fallback={<span data-testid={id}>loading</span>}>{children}</Suspense>
    </ResetBoundary>
  );
}

const pane = (store: SharedFetchStoreWithExtras, id: string, path: string, client = new QueryClient()) =>
  app(
    store,
    <Resettable id={id}>
      <Item store={store} id={id} path={path} />
    </Resettable>,
    client,
  );

describe("useSuspenseQuery(sharedQueryOptions) across tabs", () => {
  it("two tabs suspend on one request; a tab mounted after it was recorded shows it at its first render, with no request", async () => {
    const { a, b, join } = browserTabs();
    server.held = [];
    render(
      <>
        {pane(a, "a", "/one")}
        {pane(b, "b", "/one")}
      </>,
    );
    await waitFor(() => expect(server.held).toHaveLength(1));
    await pause(50); // a second request would have left by now
    expect([text("a"), text("b")]).toEqual(["loading", "loading"]);
    release();
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["success 1", "success 1"]));
    const c = join("c");
    await pause(20);
    render(
      app(
        c,
        <Suspense fallback={<span data-testid="c">loading</span>}>
          {/* Fresh by its own staleTime: suspense's 1 s minimum ran out before this mount on a loaded machine. */}
          <Item store={c} id="c" path="/one" staleTime={60_000} />
        </Suspense>,
      ),
    );
    expect(text("c")).toBe("success 1");
    await pause(50);
    expect(server.seen).toEqual(["/s/one"]);
  });

  it("a failed request goes to the boundary of every tab that asked; both resets send one request", async () => {
    const { a, b } = browserTabs();
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    server.failing = true;
    render(
      <>
        {pane(a, "a", "/err")}
        {pane(b, "b", "/err")}
      </>,
    );
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["caught HTTP 500", "caught HTTP 500"]));
    expect(server.seen).toEqual(["/s/err"]);
    server.failing = false;
    server.held = [];
    fireEvent.click(screen.getByTestId("a"));
    fireEvent.click(screen.getByTestId("b"));
    await waitFor(() => expect(server.held).toHaveLength(1));
    await pause(50);
    release();
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["success 2", "success 2"]));
    expect(server.seen).toEqual(["/s/err", "/s/err"]);
    quiet.mockRestore();
  });

  it("a refetch that fails with data shown keeps the data (status error, no boundary), as plain useSuspenseQuery does; the other tab keeps its success", async () => {
    const { a, b } = browserTabs();
    const client = new QueryClient();
    function Plain() {
      const { queryKey, queryFn } = sideBySide(server, a, "/keep")[1];
      return (
        <span data-testid="plain">{shown(useSuspenseQuery({ queryKey, queryFn: queryFn as () => Promise<Body>, retry: false }))}</span>
      );
    }
    render(
      <>
        {app(
          a,
          <>
            <Resettable id="a">
              <Item store={a} id="a" path="/keep" />
            </Resettable>
            <Resettable id="plain">
              <Plain />
            </Resettable>
          </>,
          client,
        )}
        {pane(b, "b", "/keep")}
      </>,
    );
    await waitFor(() => expect([text("a"), text("plain"), text("b")]).toEqual(["success 1", "success 1", "success 1"]));
    server.failing = true;
    await act(() => client.refetchQueries());
    await waitFor(() => expect([text("a"), text("plain"), text("b")]).toEqual(["error 1", "error 1", "success 1"]));
  });

  it("useSuspenseQueries with combine: a failed key reaches both tabs' boundaries, and both resets ask each key once", async () => {
    const { a, b } = browserTabs();
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    function Both({ store, id }: { store: SharedFetchStoreWithExtras; id: string }) {
      const combined = useSuspenseQueries({
        queries: ["/x", "/y"].map((p) => sharedQueryOptions<Body>(store, url(p), { retry: false })),
        combine: (rs) => rs.map((q) => q.data.n).join(","),
      });
      return <span data-testid={id}>{combined}</span>;
    }
    server.failing = true;
    render(
      <StrictMode>
        {app(
          a,
          <Resettable id="a">
            <Both store={a} id="a" />
          </Resettable>,
        )}
        {app(
          b,
          <Resettable id="b">
            <Both store={b} id="b" />
          </Resettable>,
        )}
      </StrictMode>,
    );
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["caught HTTP 500", "caught HTTP 500"]));
    server.failing = false;
    fireEvent.click(screen.getByTestId("a"));
    fireEvent.click(screen.getByTestId("b"));
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2,2", "2,2"]));
    await pause(50);
    expect(server.seen.sort()).toEqual(["/s/x", "/s/x", "/s/y", "/s/y"]);
    quiet.mockRestore();
  });

  it("StrictMode with usePrefetchQuery above the suspending pane: one request, and no claim left after unmount", async () => {
    const { a, b } = browserTabs();
    function Prefetching({ store, id }: { store: SharedFetchStoreWithExtras; id: string }) {
      usePrefetchQuery(sharedQueryOptions<Body>(store, url("/pre"), { retry: false }));
      return (
        <Suspense fallback={<span data-testid={id}>loading</span>}>
          <Item store={store} id={id} path="/pre" />
        </Suspense>
      );
    }
    server.held = [];
    const view = render(
      <StrictMode>
        {app(a, <Prefetching store={a} id="a" />)}
        {app(b, <Prefetching store={b} id="b" />)}
      </StrictMode>,
    );
    await waitFor(() => expect(server.held).toHaveLength(1));
    await pause(50);
    release();
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["success 1", "success 1"]));
    view.unmount();
    await pause(20);
    expect(server.seen).toEqual(["/s/pre"]);
    expect([a.claims(), b.claims()]).toEqual([[], []]);
  });

  it.skipIf(!("use" in React))("React 19's use() of each tab's fetchQuery promise: one request, both render it", async () => {
    const { a, b } = browserTabs();
    const [ca, cb] = [new QueryClient(), new QueryClient()];
    server.held = [];
    const promises = [ca.fetchQuery(sharedQueryOptions<Body>(a, url("/use"))), cb.fetchQuery(sharedQueryOptions<Body>(b, url("/use")))];
    const Used = ({ p, id }: { p: Promise<Body>; id: string }) => <span data-testid={id}>{React.use(p).n}</span>;
    const usePane = (store: SharedFetchStoreWithExtras, i: 0 | 1, id: string) =>
      app(
        store,
        <Suspense fallback={<span data-testid={id}>loading</span>}>
          <Used p={promises[i]!} id={id} />
        </Suspense>,
        [ca, cb][i],
      );
    await act(
      async () =>
        void render(
          <>
            {usePane(a, 0, "a")}
            {usePane(b, 1, "b")}
          </>,
        ),
    );
    await waitFor(() => expect(server.held).toHaveLength(1));
    await pause(50);
    await act(async () => release());
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["1", "1"]));
    expect(server.seen).toEqual(["/s/use"]);
  });
});

describe("useSuspenseQuery on a hung host (invariant 8)", () => {
  it("every tab stays suspended past many leases, one mounted late too: pending, never done with nothing; the answer reaches all", async () => {
    useFakeClock();
    const c = cluster(3, { settleMs: 0 });
    c.host.auto = () => undefined;
    const [a, b, late] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    function Hung({ store, id }: { store: SharedFetchStoreWithExtras; id: string }) {
      return <span data-testid={id}>{useSuspenseQuery(sharedQueryOptions<{ n: number }>(store, URL_A)).data.n}</span>;
    }
    const hungPane = (store: SharedFetchStoreWithExtras, id: string) =>
      app(
        store,
        <Resettable id={id}>
          <Hung store={store} id={id} />
        </Resettable>,
      );
    render(
      <>
        {hungPane(a, "a")}
        {hungPane(b, "b")}
      </>,
    );
    for (let s = 0; s < 60; s++) await advance(1000);
    render(hungPane(late, "late"));
    for (let s = 0; s < 60; s++) await advance(1000);
    expect([text("a"), text("b"), text("late")]).toEqual(["loading", "loading", "loading"]);
    expect(c.host.calls).toHaveLength(1);
    await act(async () => c.host.calls[0]!.respond(200, { n: 7 }));
    await advance(100);
    expect([text("a"), text("b"), text("late")]).toEqual(["7", "7", "7"]);
    vi.useRealTimers();
  });
});
