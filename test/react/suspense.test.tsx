// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { Suspense } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetchSuspense } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);
const flush = () => act(async () => {});

function Item({ url }: { url: string }) {
  const { status, data } = useSharedFetchSuspense<{ n: number }>(url);
  return <span data-testid="item">{`${status}: ${data?.n}`}</span>;
}

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

  it("a recorded HTTP error renders as status error instead of throwing", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 503, body: "down" });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SharedFetchProvider store={a!}>
          <Suspense fallback={<span>loading</span>}>
            <Item url={URL_A} />
          </Suspense>
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await flush();
    await flush();
    expect(screen.getByTestId("item").textContent).toBe("error: undefined");
    c.destroy();
  });
});
