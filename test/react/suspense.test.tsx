// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { Suspense } from "react";
import { Boundary } from "../harness/boundary.tsx";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SharedFetchError, SharedFetchProvider, useSharedFetchSuspense } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);
const flush = () => act(async () => {});

function Item({ url }: { url: string }) {
  const { status, data } = useSharedFetchSuspense<{ n: number }>(url);
  return <span data-testid="item">{`${status}: ${data?.n}`}</span>;
}

const showError = (error: unknown) => {
  const e = error as SharedFetchError;
  return <span data-testid="boundary">{`${e.name} ${e.status}: ${e.message}`}</span>;
};

describe("useSharedFetchSuspense", () => {
  it("suspends until another replica's result arrives, then renders it (one request in all)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    void a!.ensure({ url: URL_A });
    await flush();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SharedFetchProvider store={b!}>
          <Suspense fallback={<span data-testid="fallback">loading</span>}>
            <Item url={URL_A} />
          </Suspense>
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await flush();
    expect(screen.getByTestId("fallback").textContent).toBe("loading");
    await act(async () => c.host.calls[0]!.respond(200, { n: 5 }));
    await flush();
    expect(screen.getByTestId("item").textContent).toBe("success: 5");
    expect(c.host.calls).toHaveLength(1);
    c.destroy();
  });

  it("a recorded HTTP error with no data throws a SharedFetchError to the error boundary (as useSuspenseQuery does)", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 503, body: "down" });
    const errors: unknown[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <SharedFetchProvider store={a!}>
          <Boundary errors={errors} show={showError}>
            <Suspense fallback={<span>loading</span>}>
              <Item url={URL_A} />
            </Suspense>
          </Boundary>
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("boundary").textContent).toMatch(/^SharedFetchError 503: HTTP 503/));
    expect(errors[0]).toBeInstanceOf(SharedFetchError);
    expect(c.host.calls).toHaveLength(1);
    spy.mockRestore();
    c.destroy();
  });
});
