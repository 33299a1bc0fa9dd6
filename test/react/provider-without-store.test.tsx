// @vitest-environment jsdom
/**
 * A SharedFetchProvider given no store yet (an app that makes its store once the user is known),
 * inside a QueryClientProvider: its children render and the provider throws nothing into React
 * (before, its effect read the missing store and threw a TypeError); given the store later, a
 * shared hook under it fetches and shows the data.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStore } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane() {
  const q = useSharedFetch<{ n: number }>(URL_A);
  return <p>{q.data ? `n = ${q.data.n}` : "loading"}</p>;
}

it("a provider with no store yet, under a QueryClientProvider, renders its children; given the store, the hooks under it fetch", async () => {
  const client = new QueryClient();
  const app = (store: SharedFetchStore | undefined, node: ReactNode) => (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store as SharedFetchStore}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
  const view = render(app(undefined, <p>signed out</p>));
  await waitFor(() => expect(screen.getByText("signed out")).toBeTruthy());

  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  view.rerender(app(c.stores[0], <Pane />));
  await waitFor(() => expect(screen.getByText("n = 1")).toBeTruthy());
  expect(c.host.calls.length).toBe(1);
});
