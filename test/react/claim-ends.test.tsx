// @vitest-environment jsdom
/**
 * Invariant 8 (pending is truthful) in a pane that reads `claim` but not `isFetching`: once its own
 * query function ends, the pane shows no claim, even when the answer equals what it already showed
 * (TanStack then renders nothing for the data, so the view must render for the claim's end itself).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane() {
  const { status, data, claim, refetch } = useSharedFetch<{ n: number }>(URL_A);
  return (
    <>
      <span data-testid="pane">{`${status} ${data?.n ?? "-"} ${claim ? (claim.mine ? "mine" : "foreign") : "-"}`}</span>
      <button onClick={() => void refetch()}>refetch</button>
    </>
  );
}

const app = (store: SharedFetchStoreWithExtras) => (
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <Pane />
    </SharedFetchProvider>
  </QueryClientProvider>
);

describe("invariant 8: a pane's own claim ends with its query function, even when the answer is unchanged", () => {
  it("refetch() answered with the same data: the pane shows no claim afterwards", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    render(app(c.stores[0]!));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("success 1 -"));
    await act(async () => screen.getByText("refetch").click());
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("success 1 -"));
  });

  it("a reload that revalidates a persisted result with the same data: no claim left shown", async () => {
    const c = cluster(1, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const first = c.stores[0]!;
    await first.ensure({ url: URL_A });
    const reloaded = c.join({}, c.docOf(first));
    first.destroy();
    render(app(reloaded));
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("success 1 -"));
  });
});
