// @vitest-environment jsdom
/**
 * A fourth round of what a TanStack Query user meets every day, on sharedQueryOptions and
 * sharedMutationFn beside a plain query or mutation function over fetch, against a real HTTP server
 * on 127.0.0.1 that counts what it is sent: a lazy query, `resetQueries` during a first load,
 * `throwOnError` given the query with QueryErrorResetBoundary, `placeholderData` given the previous
 * query, `select`'s value kept across renders and a `select` that throws, `setQueryData` while the
 * request is in flight, and a mutation made offline (paused, then sent) with its `mutationKey`,
 * `onMutate` context and `useMutationState`. Each step waits for both sides' state (no clock);
 * each renders the same states and sends as many requests.
 */
import {
  onlineManager,
  QueryClient,
  useMutation,
  useMutationState,
  useQuery,
  useQueryClient,
  type Query,
  type QueryKey,
} from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedMutationFn } from "../../src/index.ts";
import { ResetBoundary } from "../harness/boundary.tsx";
import { app } from "../harness/render-app.tsx";
import { sideBySide, sideBySideServerForFile, twoTabs, unprefixed, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => {
  onlineManager.setOnline(true);
  vi.restoreAllMocks();
});

type PaneProps = { which: 0 | 1; log: (s: string) => void };

/**
 * `Pane` both ways in one tab (0 shared, 1 plain), each in an error boundary over TanStack's
 * QueryErrorResetBoundary (a "reset 0|1" button once it caught); each one's distinct logged states.
 */
function bothWays(Pane: (props: PaneProps & { sides: [Options, Options] }) => React.ReactNode, path: string, options: object = {}) {
  const [a] = twoTabs();
  const sides = sideBySide(server, a, path, options);
  const logs: string[][] = [[], []];
  const log = (which: 0 | 1) => (s: string) => void (logs[which]!.at(-1) !== unprefixed(s) && logs[which]!.push(unprefixed(s)));
  const client = new QueryClient();
  render(
    app(
      a,
      <>
        {([0, 1] as const).map((w) => (
          <ResetBoundary key={w} show={(_error, reset) => <button onClick={reset}>{`reset ${w}`}</button>}>
            <Pane which={w} log={log(w)} sides={sides} />
          </ResetBoundary>
        ))}
      </>,
      client,
    ),
  );
  const click = (label: string) => act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`${label} ${w}`))));
  const bothAt = (state: string) => waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual([state, state]));
  const sent = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
  return { logs, click, bothAt, sent, client, sides };
}

it("a lazy query (enabled: false, refetch() by hand, then enabled): the same states and flags", async () => {
  const p = bothWays(function Pane({ which, log, sides }) {
    const [on, setOn] = useState(false);
    const q = useQuery({ ...sides[which], enabled: on });
    log(
      `${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${[q.isLoading, q.isFetched, q.isFetchedAfterMount, q.dataUpdatedAt > 0].join()}`,
    );
    return (
      <>
        <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>
        <button onClick={() => setOn(true)}>{`enable ${which}`}</button>
      </>
    );
  }, "/lazy");
  expect(p.logs).toEqual(Array(2).fill(["pending idle - false,false,false,false"]));
  await p.click("refetch");
  await p.bothAt("success idle 1 false,true,true,true");
  await p.click("enable");
  await p.bothAt("success idle 2 false,true,true,true");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([2, 2]);
});

it("resetQueries during the first load, its pane mounted: the load is sent again and its answer shows, both ways", async () => {
  const p = bothWays(function Pane({ which, log, sides }) {
    const q = useQuery(sides[which]);
    log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
    return null;
  }, "/reset-first-load");
  server.held = [];
  await waitFor(() => expect(server.held).toHaveLength(2));
  act(() => void p.client.resetQueries());
  await waitFor(() => expect(server.held).toHaveLength(4));
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  server.held = null;
  await p.bothAt("success idle 2");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([2, 2]);
});

it("throwOnError as (error, query) => …, then QueryErrorResetBoundary's reset: the same calls, states and requests", async () => {
  const given: string[][] = [[], []];
  vi.spyOn(console, "error").mockImplementation(() => {}); // React's report of each caught error
  server.failing = true;
  const p = bothWays(
    function Pane({ which, log, sides }) {
      const q = useQuery({ ...sides[which], throwOnError: (_error, query) => (given[which]!.push(query.state.status), true) });
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return null;
    },
    "/reset-boundary",
    { retry: false },
  );
  await waitFor(() => expect([screen.queryByText("reset 0"), screen.queryByText("reset 1")]).not.toContain(null));
  server.failing = false;
  await p.click("reset");
  await p.bothAt("success idle 2");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(given[0]).toEqual(given[1]);
  expect(p.sent()).toEqual([2, 2]);
});

it("placeholderData as (previousData, previousQuery) => …, with select, while the next page loads: the same values both ways", async () => {
  const [a] = twoTabs();
  const logs: string[][] = [[], []];
  function Pane({ which }: { which: 0 | 1 }) {
    const [page, setPage] = useState(1);
    const q = useQuery({
      ...sideBySide(server, a, `/page${page}`)[which],
      select: (d: Body) => `${unprefixed(d.path)}:${d.n}`,
      placeholderData: (previous: Body | undefined, query: Query<Body, Error, Body, QueryKey> | undefined) =>
        previous && { ...previous, n: -(query?.state.dataUpdateCount ?? 0) },
    });
    const line = `${q.status} ${q.data ?? "-"} ${q.isPlaceholderData}`;
    if (logs[which]!.at(-1) !== line) logs[which]!.push(line);
    return <button onClick={() => setPage(2)}>{`next ${which}`}</button>;
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
  await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(Array(2).fill("success /page1:1 false")));
  await act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`next ${w}`))));
  await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(Array(2).fill("success /page2:1 false")));
  expect(logs[0]).toEqual(logs[1]);
  expect(logs[0]).toContain("success /page1:-1 true");
});

const names = (d: Body) => ({ names: [d.path] });

it("select: the selected value keeps its identity across renders and across a refetch with an equal answer", async () => {
  server.same = true;
  const seen: Set<unknown>[] = [new Set(), new Set()];
  const p = bothWays(function Pane({ which, log, sides }) {
    const [renders, setRenders] = useState(0);
    const q = useQuery({ ...sides[which], select: names });
    if (q.data) seen[which]!.add(q.data);
    log(`${q.status} ${q.fetchStatus} ${q.data?.names.join() ?? "-"} ${renders}`);
    return (
      <>
        <button onClick={() => setRenders((n) => n + 1)}>{`render ${which}`}</button>
        <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>
      </>
    );
  }, "/select");
  await p.bothAt("success idle /select 0");
  await p.click("render");
  await p.bothAt("success idle /select 1");
  await p.click("refetch");
  await p.bothAt("success idle /select 1");
  expect(p.sent()).toEqual([2, 2]);
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(seen.map((s) => s.size)).toEqual([1, 1]);
});

it("a select that throws: the query shows that error (status error, data undefined), and a select fixed later shows the data", async () => {
  const p = bothWays(function Pane({ which, log, sides }) {
    const [broken, setBroken] = useState(true);
    const q = useQuery({
      ...sides[which],
      select: (d: Body) => {
        if (broken) throw new Error(`cannot select ${d.n}`);
        return d.n;
      },
    });
    log(`${q.status} ${q.fetchStatus} ${q.data ?? "-"} ${q.error?.message ?? "-"}`);
    return <button onClick={() => setBroken(false)}>{`fix ${which}`}</button>;
  }, "/select-throws");
  await p.bothAt("error idle - cannot select 1");
  await p.click("fix");
  await p.bothAt("success idle 1 -");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([1, 1]);
});

it("setQueryData while the query's request is in flight: the data set shows, then the request's answer replaces it", async () => {
  const p = bothWays(function Pane({ which, log, sides }) {
    const q = useQuery(sides[which]);
    const client = useQueryClient();
    log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
    return <button onClick={() => client.setQueryData(sides[which].queryKey, { path: "set", n: 100 })}>{`set ${which}`}</button>;
  }, "/set-in-flight");
  server.held = [];
  await p.bothAt("pending fetching -");
  await waitFor(() => expect(server.held).toHaveLength(2));
  await p.click("set");
  await p.bothAt("success fetching 100");
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  server.held = null;
  await p.bothAt("success idle 1");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([1, 1]);
});

it("a mutation made offline: isPaused, then sent once online; mutationKey, onMutate's context and useMutationState alike", async () => {
  const [a] = twoTabs();
  const logs: Record<string, string[]> = { shared: [], plain: [] };
  const post = async (name: string) => {
    const res = await fetch(`${server.base}/p/items`, { method: "POST", body: JSON.stringify({ name }) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.json()) as Body;
  };
  const shared = sharedMutationFn<string, Body>(a, (name) => ({
    url: `${server.base}/s/items`,
    method: "POST",
    body: JSON.stringify({ name }),
  }));
  function Pane({ id }: { id: "shared" | "plain" }) {
    const log = logs[id]!;
    const m = useMutation({
      mutationKey: ["add", id],
      mutationFn: id === "shared" ? shared : post,
      onMutate: (name: string) => ({ optimistic: `${name}!` }),
      onSettled: (data, _e, name, context) => void log.push(`settled ${name} ${context?.optimistic} ${unprefixed(data?.path ?? "-")}`),
    });
    const states = useMutationState({
      filters: { mutationKey: ["add", id] },
      select: (s) => `${s.state.status}:${String(s.state.variables)}:${s.state.isPaused}`,
    });
    const shown = `${m.status} ${m.isPaused ? "paused" : "-"} ${m.variables ?? "-"} [${states.join()}]`;
    if (log.at(-1) !== shown) log.push(shown);
    return <button onClick={() => m.mutate("new")}>{`add ${id}`}</button>;
  }
  render(
    app(
      a,
      <>
        <Pane id="shared" />
        <Pane id="plain" />
      </>,
    ),
  );
  act(() => onlineManager.setOnline(false));
  await act(() => ["shared", "plain"].forEach((id) => fireEvent.click(screen.getByText(`add ${id}`))));
  await waitFor(() => expect([logs.shared!.at(-1), logs.plain!.at(-1)]).toEqual(Array(2).fill("pending paused new [pending:new:true]")));
  expect(server.seen).toEqual([]);
  act(() => onlineManager.setOnline(true));
  await waitFor(() => expect([logs.shared!.at(-1), logs.plain!.at(-1)]).toEqual(Array(2).fill("success - new [success:new:false]")));
  expect(logs.shared).toEqual(logs.plain);
  expect(logs.shared).toContain("settled new new! /items");
  expect(server.seen).toEqual(expect.arrayContaining(["/s/items", "/p/items"]));
  expect(server.seen).toHaveLength(2);
});
