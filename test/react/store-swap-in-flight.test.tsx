// @vitest-environment jsdom
/**
 * An app re-creates its store (a token refresh, a reconnect) and keeps it in state; the effect that
 * made the old one destroys it once the new one renders — React's usual pattern. A query of the
 * same identity waiting on the old store's request must not end on "the store was destroyed"
 * (nothing in the key changed, so TanStack would not fetch again before a focus or a refetch): it
 * asks the new store. Invariant 8 (pending is truthful): pending until the new store's result.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { useEffect, useState } from "react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

it("a store swapped in while a query waits, the old one destroyed by its effect: the query asks the new store, never shows the destroyed one's abort", async () => {
  const c = cluster(0, { settleMs: 0 });
  const seen: string[] = [];
  function Pane() {
    const q = useSharedFetch<{ n: number }>(URL_A);
    const shown = `${q.status} ${q.data?.n ?? "-"} ${q.error?.message ?? ""}`.trim();
    if (seen.at(-1) !== shown) seen.push(shown);
    return <span data-testid="pane">{shown}</span>;
  }
  let swap!: () => void;
  function Root() {
    const [store, setStore] = useState(() => c.join({ identity: "alice" }));
    swap = () => setStore(c.join({ identity: "alice" }));
    useEffect(() => () => store.destroy(), [store]);
    return (
      <SharedFetchProvider store={store}>
        <Pane />
      </SharedFetchProvider>
    );
  }
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Root />
    </QueryClientProvider>,
  );
  const [first] = await c.host.whenCalls(1);
  await act(async () => swap());
  await waitFor(() => expect(first!.state).toBe("aborted"));
  const [, second] = await c.host.whenCalls(2);
  expect(screen.getByTestId("pane").textContent).toBe("pending -");
  await act(async () => second!.respond(200, { n: 2 }));
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("success 2"));
  expect(seen).toEqual(["pending -", "success 2"]);
});
