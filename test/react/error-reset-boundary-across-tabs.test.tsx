// @vitest-environment jsdom
/** throwOnError (its function form) in two tabs, each under QueryErrorResetBoundary: a reset refetches once for all. */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { ResetBoundary } from "../harness/boundary.tsx";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";
import { pause, text } from "../harness/two-panes.tsx";

afterEach(cleanup);

function Shown({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const q = useQuery(
    sharedQueryOptions<{ n: number }>(store, URL_A, {
      retry: false,
      throwOnError: (error) => (error.status ?? 0) >= 500,
      staleTime: 60_000,
    }),
  );
  return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
}

/** The reset button resets TanStack's boundary and remounts the pane. */
function Pane({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  return (
    <ResetBoundary
      show={(_, reset) => (
        <button data-testid={`retry-${name}`} onClick={reset}>
          retry
        </button>
      )}
    >
      <Shown store={store} name={name} />
    </ResetBoundary>
  );
}

describe("throwOnError and useQueryErrorResetBoundary across tabs", () => {
  it("tab B's reset after tab A's reset fetched again shows A's result: one request for both", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = () => undefined;
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    render(
      <>
        {app(a, <Pane store={a} name="a" />, new QueryClient())}
        {app(b, <Pane store={b} name="b" />, new QueryClient())}
      </>,
    );
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    c.host.calls[0]!.respond(500, "down");
    await waitFor(() => expect(screen.queryByTestId("retry-a") && screen.queryByTestId("retry-b")).toBeTruthy());
    expect(c.host.calls).toHaveLength(1);
    fireEvent.click(screen.getByTestId("retry-a"));
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    c.host.calls[1]!.respond(200, { n: 2 });
    await waitFor(() => expect(text("a")).toBe("2"));
    fireEvent.click(screen.getByTestId("retry-b"));
    await waitFor(() => expect(text("b")).toBe("2"));
    await pause(100);
    expect(c.host.calls).toHaveLength(2);
  });
  it("both tabs reset while the other's refetch is in flight: one request for both", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = () => undefined;
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    render(
      <>
        {app(a, <Pane store={a} name="a" />, new QueryClient())}
        {app(b, <Pane store={b} name="b" />, new QueryClient())}
      </>,
    );
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    c.host.calls[0]!.respond(500, "down");
    await waitFor(() => expect(screen.queryByTestId("retry-a") && screen.queryByTestId("retry-b")).toBeTruthy());
    expect(c.host.calls).toHaveLength(1);
    fireEvent.click(screen.getByTestId("retry-a"));
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    fireEvent.click(screen.getByTestId("retry-b"));
    await pause(50);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, { n: 2 });
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
    await pause(100);
    expect(c.host.calls).toHaveLength(2);
  });
});
