// @vitest-environment jsdom
/**
 * README ("The same"): a shared query renders as often as a plain useQuery beside it, against a
 * real HTTP server on 127.0.0.1, through a load, a refetch and a refetch whose retries fail, with
 * notifyOnChangeProps "all", a list, or none (tracked): every render logged, then compared whole.
 * useIsFetching and queryClient.isFetching() count a query whose fetch joined another tab's request
 * as fetching, in both tabs, as each plain tab counts its own.
 */
import { QueryClient, useIsFetching, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { expect, it } from "vitest";
import { sharedQueryOptions } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { sideBySide, sideBySideServerForFile, twoTabs } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

for (const props of ["all", undefined, ["data"], ["status", "fetchStatus"]] as const)
  it(`notifyOnChangeProps ${JSON.stringify(props)}: the same renders, one by one, as plain useQuery's`, async () => {
    const [a] = twoTabs();
    const logs: string[][] = [[], []];
    let client!: QueryClient;
    function Pane({ which }: { which: 0 | 1 }) {
      client = useQueryClient();
      const q = useQuery({ ...sideBySide(server, a, "/r", { retry: 2, retryDelay: 5 })[which], notifyOnChangeProps: props as never });
      logs[which]!.push(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${props === undefined ? "" : q.failureCount}`);
      return null;
    }
    render(
      app(
        a,
        <>
          <Pane which={0} />
          <Pane which={1} />
        </>,
      ),
    );
    await waitFor(() => expect(logs.map((l) => l.at(-1)!.split(" ").slice(0, 3).join(" "))).toEqual(["success idle 1", "success idle 1"]));
    await act(() => client.refetchQueries());
    await act(() => new Promise((r) => setTimeout(r, 30)));
    server.failing = true;
    await act(() => client.refetchQueries().catch(() => {}));
    await waitFor(() =>
      expect(
        client
          .getQueryCache()
          .getAll()
          .map((q) => q.state.status),
      ).toEqual(["error", "error"]),
    );
    await act(() => new Promise((r) => setTimeout(r, 30)));
    expect(logs[0]).toEqual(logs[1]);
  });

it("useIsFetching and isFetching(): a query whose fetch joined another tab's request counts as fetching, until the answer", async () => {
  const [a, b] = twoTabs();
  server.held = [];
  const counts: number[][] = [[], []];
  const clients: QueryClient[] = [];
  function Pane({ which }: { which: 0 | 1 }) {
    const store = which === 0 ? a : b;
    clients[which] = useQueryClient();
    useQuery(sharedQueryOptions(store, `${server.base}/s/j`));
    useQueries({ queries: [sharedQueryOptions(store, `${server.base}/s/k`)], combine: (r) => r.length });
    const n = useIsFetching();
    if (counts[which]!.at(-1) !== n) counts[which]!.push(n);
    return null;
  }
  render(
    <>
      {app(a, <Pane which={0} />)}
      {app(b, <Pane which={1} />)}
    </>,
  );
  await waitFor(() => expect(server.held).toHaveLength(2));
  expect(clients.map((c) => c.isFetching())).toEqual([2, 2]);
  act(() => server.held!.splice(0).forEach((f) => f()));
  await waitFor(() => expect(clients.map((c) => c.isFetching())).toEqual([0, 0]));
  expect(counts).toEqual([
    [0, 2, 0],
    [0, 2, 0],
  ]);
});
