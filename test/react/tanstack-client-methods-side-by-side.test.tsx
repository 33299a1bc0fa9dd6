// @vitest-environment jsdom
/**
 * QueryClient methods a TanStack Query user calls every day, on sharedQueryOptions beside a plain
 * query function over fetch, against a real HTTP server on 127.0.0.1. Where they differ by design
 * (README, "Coming from TanStack Query": cancelQueries keeps an observed query's request; the
 * shared record outlives removeQueries, clear() and the gcTime), the test pins what the README says.
 */
import { QueryClient, useIsFetching, useQuery } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, twoTabs, unprefixed, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

/** Mounts a shared pane and a plain one over `path`; returns each one's distinct states, in order. */
function panes(store: SharedFetchStoreWithExtras, client: QueryClient, path: string, options: object = {}) {
  const logs: string[][] = [[], []];
  const Pane = ({ which }: { which: 0 | 1 }) => {
    const q = useQuery(sideBySide(server, store, path, options)[which]);
    const shown = `${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`;
    if (logs[which]!.at(-1) !== shown) logs[which]!.push(shown);
    return null;
  };
  const view = render(
    app(
      store,
      <>
        <Pane which={0} />
        <Pane which={1} />
      </>,
      client,
    ),
  );
  return { logs, unmount: view.unmount, last: () => logs.map((l) => l.at(-1)) };
}

describe("the client's fetching methods and state, as with a plain query function", () => {
  it("prefetchQuery, ensureQueryData({ revalidateIfStale }), fetchQuery({ staleTime }), getQueryState and isFetching() give the same answers and send as many requests", async () => {
    const [a] = twoTabs();
    const client = new QueryClient();
    const steps = async (options: ReturnType<typeof sideBySide>[number], side: string) => {
      const sent = () => server.seen.filter((p) => p.startsWith(side)).length;
      const out: unknown[] = [];
      await client.prefetchQuery(options);
      out.push(sent(), await client.ensureQueryData({ ...options, revalidateIfStale: true }));
      await waitFor(() => expect(sent()).toBe(2));
      out.push(client.getQueryData<Body>(options.queryKey)?.n);
      out.push(await client.fetchQuery({ ...options, staleTime: 60_000 }), sent());
      const { status, fetchStatus, dataUpdateCount, isInvalidated, fetchFailureCount } = client.getQueryState(options.queryKey)!;
      out.push(status, fetchStatus, dataUpdateCount, isInvalidated, fetchFailureCount);
      const fetching = client.fetchQuery({ ...options, staleTime: 0 });
      out.push(client.isFetching({ queryKey: options.queryKey }));
      out.push(await fetching, client.isFetching({ queryKey: options.queryKey }), sent());
      return unprefixed(JSON.stringify(out));
    };
    const [shared, plain] = sideBySide(server, a, "/methods");
    expect(await steps(shared, "/s")).toBe(await steps(plain, "/p"));
  });

  it("useIsFetching counts both shared queries while they fetch, then none, as for plain queries", async () => {
    const [a] = twoTabs();
    const counts: number[][] = [[], []];
    function Pane({ which }: { which: 0 | 1 }) {
      useQuery(sideBySide(server, a, "/one")[which]);
      useQuery(sideBySide(server, a, "/two")[which]);
      const n = useIsFetching({ queryKey: which === 0 ? ["shared-fetch"] : ["plain"] });
      if (counts[which]!.at(-1) !== n) counts[which]!.push(n);
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
    await waitFor(() => expect(server.seen).toHaveLength(4));
    // Both queries of a side count while their functions run, whichever answer comes first; the
    // answers come when they come (a loaded machine), and no count rises again after.
    const counted = () =>
      expect(counts.map((c) => [Math.max(...c), c.at(-1)])).toEqual([
        [2, 0],
        [2, 0],
      ]);
    await waitFor(counted, { timeout: 5_000 });
    await pause(100);
    counted();
  });

  it("setQueriesData by the key prefix sets every shared query under it, and the data set stays", async () => {
    const [a] = twoTabs();
    const client = new QueryClient();
    const one = panes(a, client, "/set-one", { staleTime: 60_000 });
    const two = panes(a, client, "/set-two", { staleTime: 60_000 });
    await waitFor(() => expect([...one.last(), ...two.last()]).toEqual(Array(4).fill("success idle 1")));
    act(() => void client.setQueriesData<Body>({ queryKey: ["shared-fetch", "GET"] }, (d) => d && { ...d, n: 99 }));
    await pause(100);
    expect([...one.last(), ...two.last()]).toEqual(["success idle 99", "success idle 1", "success idle 99", "success idle 1"]);
    expect(server.seen).toHaveLength(4);
  });
});

describe("where the shared query differs by design (README)", () => {
  it("cancelQueries({ revert: true }) reverts the state at once, as TanStack does; the observed query's request goes on, and its answer then shows", async () => {
    const [a] = twoTabs();
    const client = new QueryClient();
    const { logs, last } = panes(a, client, "/cancel", { staleTime: 60_000 });
    await waitFor(() => expect(last()).toEqual(["success idle 1", "success idle 1"]));
    server.held = [];
    void client.refetchQueries();
    await waitFor(() => expect(server.held).toHaveLength(2));
    await act(() => client.cancelQueries({}, { revert: true }));
    await pause(10);
    expect(last()).toEqual(["success idle 1", "success idle 1"]);
    const answers = server.held.splice(0);
    server.held = null;
    answers.forEach((answer) => answer());
    // The plain request was aborted (its answer goes nowhere); the shared one was kept for the
    // replicas that may have joined it, and its answer reaches this tab as another tab's would.
    await waitFor(() => expect(last()).toEqual(["success idle 2", "success idle 1"]));
    expect(logs[1]).toEqual(["pending fetching -", "success idle 1", "success fetching 1", "success idle 1"]);
  });

  // gcTime: TanStack's garbage collection removes the query once no pane has shown it for that long.
  for (const how of ["removeQueries", "clear", "gcTime"] as const)
    it(`${how === "gcTime" ? "gcTime run out" : `${how}()`} then a remount: the recorded result shows at once and, fresh by the staleTime, is not fetched again (plain useQuery loads anew)`, async () => {
      const [a] = twoTabs();
      const client = new QueryClient();
      const options = how === "gcTime" ? { staleTime: 60_000, gcTime: 0 } : { staleTime: 60_000 };
      const first = panes(a, client, `/${how}`, options);
      await waitFor(() => expect(first.last()).toEqual(["success idle 1", "success idle 1"]));
      first.unmount();
      if (how === "clear") client.clear();
      else if (how === "removeQueries") client.removeQueries();
      else await waitFor(() => expect(client.getQueryCache().getAll()).toHaveLength(0));
      const again = panes(a, client, `/${how}`, options);
      await waitFor(() => expect(again.last()).toEqual(["success idle 1", "success idle 2"]));
      await pause(50);
      expect(again.logs).toEqual([["success idle 1"], ["pending fetching -", "success idle 2"]]);
      expect(server.seen.filter((p) => p.startsWith("/s"))).toHaveLength(1);
    });
});
