// @vitest-environment jsdom
/**
 * cancelQueries on a query still observed keeps the request another replica claimed for it
 * (optimistic-update-across-tabs.test.tsx). When that claimant dies meanwhile, this tab takes the
 * request over for everyone waiting on it: it must do so as the query would have, with the
 * query's `leaseMs` in its claim and the query's `retry` inside it (invariants 1 and 10: the lease
 * others judge its silence by; README: retries run inside the claim). Before, the kept request
 * took it over with the store's default lease and no retry: one failure became the error every
 * waiting replica showed.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { background, cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions(store, URL_A, { retry: 2, retryDelay: 0, leaseMs: 60_000 }));
  return <span data-testid="a">{q.fetchStatus}</span>;
}

it("the claimant of a request kept past cancelQueries dies: this tab takes it over with the query's leaseMs and retries it as the query's retry says", async () => {
  // The dead claimant holds the store default (1 s); the query asks for a lease of its own.
  const c = cluster(2, { settleMs: 0, leaseMs: 1_000 });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  c.host.auto = () => undefined;
  background(b.ensure({ url: URL_A }));
  await waitFor(() => expect(c.host.calls).toHaveLength(1));
  const client = new QueryClient();
  render(app(a, <Pane store={a} />, client));
  await waitFor(() => expect(a.snapshot({ url: URL_A }).claim?.mine).toBe(false));
  await act(() => client.cancelQueries());
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("idle"));
  c.crash(b);
  await waitFor(() => expect(c.host.calls).toHaveLength(2), { timeout: 8_000 });
  expect(a.claims().map(([, claim]) => claim.leaseMs)).toEqual([60_000]);
  c.host.auto = () => ({ status: 503, body: "down" });
  c.host.calls[1]!.respond(503, "down");
  await waitFor(() => expect(a.snapshot({ url: URL_A }).status).toBe("error"), { timeout: 8_000 });
  // The first attempt and its two retries, all in the one claim.
  expect(c.host.calls.slice(1).map((call) => call.status)).toEqual([503, 503, 503]);
});
