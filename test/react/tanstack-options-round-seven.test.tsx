// @vitest-environment jsdom
/**
 * A seventh round of what a TanStack Query user meets every day, on sharedQueryOptions beside a
 * plain query function over fetch, against a real HTTP server on 127.0.0.1 that counts what it is
 * sent: `enabled` and `refetchOnWindowFocus` as functions of the query, a mutation whose
 * `onSuccess` returns `invalidateQueries` (pending until the new data shows), `refetchQueries` and
 * `invalidateQueries` with `throwOnError`, `useSuspenseQuery` moved to another key inside a
 * transition, and useSharedFetch beside useQuery with several of these. Each step waits for both
 * sides' state (no clock); each sends as many requests and renders the same states, and where two
 * tabs ask, the shared side sends one request.
 */
import {
  focusManager,
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  useSuspenseQuery,
  type Query,
  type UseSuspenseQueryOptions,
} from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { Suspense, useLayoutEffect, useState, useTransition } from "react";
import { afterEach, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { bothWays } from "../harness/both-ways.tsx";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, unprefixed, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => focusManager.setFocused(undefined));

/**
 * A log without the states of a refetch over shown data: TanStack tells its observers on a later
 * task, and an answer from 127.0.0.1 may land first, so either side may render none of them.
 */
const settled = (log: string[]) => log.filter((s) => !s.startsWith("success fetching"));

const focus = () => act(() => (focusManager.setFocused(false), focusManager.setFocused(true)));

for (const given of ["in sharedQueryOptions' options", "spread over them"] as const)
  it(`enabled as a function of the query's data (${given}): invalidateQueries refetches while it says true, sends nothing once it says false; refetch() still sends`, async () => {
    const enabled = (q: Query<Body, Error, Body, readonly unknown[]>) => (q.state.data?.n ?? 0) < 2;
    const inOptions = given === "in sharedQueryOptions' options";
    const p = bothWays(
      server,
      function Pane({ which, log, sides }) {
        const q = useQuery(inOptions ? sides[which] : { ...sides[which], enabled });
        log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.isStale}`);
        return <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>;
      },
      `/enabled-fn-${inOptions}`,
      inOptions ? { enabled } : {},
    );
    await p.bothAt("success idle 1 true");
    await act(() => p.client.invalidateQueries());
    // A query no enabled observer shows is not stale, TanStack says (isStale goes false).
    await p.bothAt("success idle 2 false");
    await act(() => p.client.invalidateQueries());
    await focus();
    await pause(50); // a request would have left by now
    expect(p.sent()).toEqual([2, 2]);
    await p.click("refetch");
    await p.bothAt("success idle 3 false");
    expect(settled(p.logs[0]!)).toEqual(settled(p.logs[1]!));
    expect(p.sent()).toEqual([3, 3]);
  });

it("refetchOnWindowFocus as a function of the query: a focus refetches while it says true and not once it says false", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery({ ...sides[which], refetchOnWindowFocus: (query) => query.state.dataUpdateCount < 2 });
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.dataUpdatedAt > 0}`);
      return null;
    },
    "/focus-fn",
  );
  await p.bothAt("success idle 1 true");
  await focus();
  await p.bothAt("success idle 2 true");
  await focus();
  await pause(50); // a request would have left by now
  expect(p.sent()).toEqual([2, 2]);
  expect(settled(p.logs[0]!)).toEqual(settled(p.logs[1]!));
  expect(p.sides.map((o) => p.client.getQueryState(o.queryKey)?.dataUpdateCount)).toEqual([2, 2]);
});

it("a mutation whose onSuccess returns invalidateQueries stays pending until the refetched data shows: never success over the old data", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const client = useQueryClient();
      const q = useQuery(sides[which]);
      const m = useMutation({
        mutationFn: () => fetch(`${server.base}/m/${which}`, { method: "POST" }).then((r) => r.json() as Promise<Body>),
        onSuccess: () => client.invalidateQueries({ queryKey: sides[which].queryKey }),
      });
      log(`${m.status} ${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return <button onClick={() => m.mutate()}>{`save ${which}`}</button>;
    },
    "/mutate-invalidate",
  );
  await p.bothAt("idle success idle 1");
  server.held = [];
  await p.click("save");
  await waitFor(() => expect(server.held).toHaveLength(2));
  server.held.splice(0).forEach((answer) => answer());
  // The invalidation's refetch is held: the mutation must still be pending.
  await waitFor(() => expect(server.held).toHaveLength(2));
  await pause(20);
  expect(p.logs.map((l) => l.at(-1))).toEqual(["pending success fetching 1", "pending success fetching 1"]);
  server.held.splice(0).forEach((answer) => answer());
  server.held = null;
  await p.bothAt("success success idle 2");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.logs[0]).toEqual([
    "idle pending fetching -",
    "idle success idle 1",
    "pending success idle 1",
    "pending success fetching 1",
    "success success idle 2",
  ]);
  expect(p.sent()).toEqual([2, 2]);
});

it("refetchQueries and invalidateQueries with throwOnError: true reject when the refetch fails; without it they resolve", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return null;
    },
    "/throw-on-error",
    { retry: false },
  );
  await p.bothAt("success idle 1");
  server.failing = true;
  const outcomes = async (method: "refetchQueries" | "invalidateQueries", throwOnError: boolean) =>
    (await act(() => Promise.allSettled(p.sides.map((o) => p.client[method]({ queryKey: o.queryKey }, { throwOnError }))))).map((r) =>
      r.status === "rejected" ? `rejected ${r.reason instanceof Error}` : "resolved",
    );
  expect(await outcomes("refetchQueries", true)).toEqual(["rejected true", "rejected true"]);
  expect(await outcomes("invalidateQueries", true)).toEqual(["rejected true", "rejected true"]);
  expect(await outcomes("refetchQueries", false)).toEqual(["resolved", "resolved"]);
  await p.bothAt("error idle 1");
  expect(settled(p.logs[0]!)).toEqual(settled(p.logs[1]!));
  expect(p.sent()).toEqual([4, 4]);
});

/** A suspending page of `/page-${page}`, logging what each commit shows; a transition to the next page keeps this one shown. */
function Pages({
  which,
  log,
  store,
  label = `next ${which}`,
}: {
  which: 0 | 1;
  log: (s: string) => void;
  store: SharedFetchStoreWithExtras;
  label?: string;
}) {
  const [page, setPage] = useState(1);
  const [pending, startTransition] = useTransition();
  return (
    <>
      <Suspense fallback={<Fallback log={log} />}>
        <Page which={which} page={page} pending={pending} log={log} store={store} />
      </Suspense>
      <button onClick={() => startTransition(() => setPage(2))}>{label}</button>
    </>
  );
}
function Fallback({ log }: { log: (s: string) => void }) {
  useLayoutEffect(() => log("fallback"));
  return null;
}
function Page({
  which,
  page,
  pending,
  log,
  store,
}: {
  which: 0 | 1;
  page: number;
  pending: boolean;
  log: (s: string) => void;
  store: SharedFetchStoreWithExtras;
}) {
  // Neither side is skipToken, which the suspending hooks refuse.
  const q = useSuspenseQuery(sideBySide(server, store, `/page-${page}`)[which] as unknown as UseSuspenseQueryOptions<Body>);
  const shown = `${unprefixed(q.data.path)} ${q.data.n} ${pending ? "pending" : "-"}`;
  useLayoutEffect(() => log(shown));
  return null;
}

it("useSuspenseQuery moved to another key in a transition: the old page stays shown (no fallback) until the new one's data; two tabs send one request per key", async () => {
  const p = bothWays(server, (props) => <Pages {...props} />, "/unused");
  const b: string[] = [];
  render(app(p.tabs[1], <Pages which={0} log={(s) => void (b.at(-1) !== s && b.push(s))} store={p.tabs[1]} label="next b" />));
  await p.bothAt("/page-1 1 -");
  await waitFor(() => expect(b.at(-1)).toBe("/page-1 1 -"));
  await p.click("next");
  await act(() => fireEvent.click(screen.getByText("next b")));
  await p.bothAt("/page-2 1 -");
  await waitFor(() => expect(b.at(-1)).toBe("/page-2 1 -"));
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.logs[0]).toEqual(["fallback", "/page-1 1 -", "/page-1 1 pending", "/page-2 1 -"]);
  expect(b).toEqual(p.logs[0]);
  await pause(50); // a request would have left by now
  expect(server.seen.filter((s) => s.startsWith("/s")).sort()).toEqual(["/s/page-1", "/s/page-2"]);
});

it("useSharedFetch beside useQuery with enabled as a function, select, keepPreviousData and refetch({ throwOnError: true }): the same states, results and requests", async () => {
  const results: string[][] = [[], []];
  const enabled = (q: { state: { data?: Body | undefined } }) => (q.state.data?.n ?? 0) < 2;
  const options = {
    enabled,
    placeholderData: keepPreviousData,
    retry: false as const,
    select: (d: Body) => `${unprefixed(d.path)}:${d.n}`,
  };
  const p = bothWays(
    server,
    function Pane({ which, log, store }) {
      const [page, setPage] = useState("a");
      const shared = useSharedFetch<Body, string>(which === 0 ? `${server.base}/s/hook/${page}` : null, options);
      const plain = useQuery({ ...sideBySide(server, store, `/hook/${page}`)[1], ...options, enabled: which === 1 && enabled });
      const q = which === 0 ? shared : plain;
      log(`${q.status} ${q.fetchStatus} ${q.data ?? "-"} ${q.isPlaceholderData} ${q.isStale}`);
      const push = (s: string) => results[which]!.push(s);
      return (
        <>
          <button onClick={() => setPage("b")}>{`next ${which}`}</button>
          <button
            onClick={() =>
              void q.refetch({ throwOnError: true }).then(
                (r) => push(`resolved ${r.data}`),
                (e: unknown) => push(`rejected ${e instanceof Error}`),
              )
            }
          >{`refetch ${which}`}</button>
        </>
      );
    },
    "/unused",
  );
  const bothGave = (r: string) => waitFor(() => expect(results.map((l) => l.at(-1))).toEqual([r, r]));
  await p.bothAt("success idle /hook/a:1 false true");
  await act(() => p.client.invalidateQueries());
  // Disabled by its data now: not stale, TanStack says.
  await p.bothAt("success idle /hook/a:2 false false");
  await p.click("refetch");
  await bothGave("resolved /hook/a:3");
  server.failing = true;
  await p.click("refetch");
  await bothGave("rejected true");
  await p.bothAt("error idle /hook/a:3 false false");
  server.failing = false;
  await p.click("next");
  await p.bothAt("success idle /hook/b:1 false true");
  expect(settled(p.logs[0]!)).toEqual(settled(p.logs[1]!));
  expect(p.logs[0]).toContain("success fetching /hook/a:3 true true");
  expect(p.sent()).toEqual([5, 5]);
});
