// @vitest-environment jsdom
/**
 * In a SharedWorker tab, as in a tab of its own (test/react/hydrated-over-delivered.test.tsx):
 * data that enters a query without the store after the store delivered it a result (`hydrate`,
 * as a navigation's HydrationBoundary or a persister's restore does; `fetchQuery` with the app's
 * own query function) is compared with recorded results by time. Tab A's refresh, requested
 * before that data was read, stays out of tab B's pane; A's next refresh goes in. Real ports, the
 * worker's real store and Yjs docs; the simulated host.
 */
import { hydrate, QueryClient, useQuery, type DehydratedState } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const URL = "http://127.0.0.1:9/api/hydrated-over-delivered";
type Item = { n: number | string };
const text = () => screen.getByTestId("b").textContent;
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<Item>(store, URL, { staleTime: 60_000 }));
  return <span data-testid="b">{String(q.data?.n ?? q.status)}</span>;
}

/** What a server's render dehydrates for the query: its data read now. */
function serverState(store: SharedFetchStoreWithExtras): DehydratedState {
  const { queryKey } = sharedQueryOptions(store, URL);
  const server = new QueryClient();
  server.setQueryData(queryKey, { n: "server" });
  const state = server.getQueryCache().find({ queryKey })!.state;
  return JSON.parse(
    JSON.stringify({ mutations: [], queries: [{ queryKey, queryHash: JSON.stringify(queryKey), state }] }),
  ) as DehydratedState;
}

async function enteredWhileOlderRequestRuns(
  enter: (client: QueryClient, b: SharedFetchStoreWithExtras) => Promise<unknown> | void,
  shown: string,
) {
  const host = new Host();
  const w = browser(host);
  const tabA = w.tab() as SharedFetchStoreWithExtras;
  const tabB = w.tab() as SharedFetchStoreWithExtras;
  const client = new QueryClient();
  render(app(tabB, <Pane store={tabB} />, client));
  await waitFor(() => expect(host.calls).toHaveLength(1));
  host.calls[0]!.respond(200, { n: 1 });
  await waitFor(() => expect(text()).toBe("1"));
  // A's refresh is sent, and hangs at the host; the data that enters B is read after it.
  void tabA.refetch({ url: URL }).catch(() => {});
  await waitFor(() => expect(host.calls).toHaveLength(2));
  await pause(5);
  await act(async () => void (await enter(client, tabB)));
  await waitFor(() => expect(text()).toBe(shown));
  host.calls[1]!.respond(200, { n: 2 });
  await waitFor(() => expect(tabA.snapshot({ url: URL }).data).toEqual({ n: 2 }));
  await pause(30);
  expect(text()).toBe(shown);
  await pause(5);
  void tabA.refetch({ url: URL }).catch(() => {});
  await waitFor(() => expect(host.calls).toHaveLength(3));
  host.calls[2]!.respond(200, { n: 3 });
  await waitFor(() => expect(text()).toBe("3"));
}

describe("SharedWorker tab: data from outside the store after a store delivery is compared by time, not by revision", () => {
  it("hydrate (a navigation's HydrationBoundary, a persister's restore)", async () => {
    await enteredWhileOlderRequestRuns((client, b) => hydrate(client, serverState(b)), "server");
  });

  it("fetchQuery with the app's own query function", async () => {
    await enteredWhileOlderRequestRuns(
      (client, b) =>
        client.fetchQuery({ queryKey: sharedQueryOptions(b, URL).queryKey, queryFn: async () => ({ n: "own" }), staleTime: 0 }),
      "own",
    );
  });
});
