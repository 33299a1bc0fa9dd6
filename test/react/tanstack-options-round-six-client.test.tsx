// @vitest-environment jsdom
/**
 * The sixth round's client methods and observers, on sharedQueryOptions beside a plain query
 * function over fetch, against a real HTTP server on 127.0.0.1 that counts what it is sent:
 * `invalidateQueries` with the default `refetchType` and with `"all"` on a cached query no pane
 * shows, `invalidateQueries` and `refetchQueries` with `cancelRefetch: false` while a refetch is in
 * flight, a disabled pane shown data by `fetchQuery`, a `fetchQuery` that fails (and
 * `prefetchQuery`, which swallows it), a `QueryObserver` outside React, and `refetchQueries` and
 * `invalidateQueries({ refetchType: "all" })` on a query a pane showed with another tab's result. Each step waits for both sides' state (no clock); each sends as many
 * requests and shows the same states, and where two tabs ask, the shared side sends one request.
 */
import { QueryClient, QueryObserver, useQuery, type QueryObserverResult } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { useState } from "react";
import { expect, it } from "vitest";
import { bothWays } from "../harness/both-ways.tsx";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, twoTabs, unprefixed, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

/** A query of `options`, its status, fetch status and count logged. */
function Shown({ log, options }: { log: (s: string) => void; options: Options }) {
  const q = useQuery(options);
  log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
  return null;
}

it('invalidateQueries on a cached query no pane shows: the default refetches it at its next mount, refetchType "all" at once', async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const [shown, setShown] = useState(true);
      return (
        <>
          {shown && <Shown log={log} options={sides[which]} />}
          <button onClick={() => setShown((s) => !s)}>{`toggle ${which}`}</button>
        </>
      );
    },
    "/invalidate-inactive",
    { staleTime: Infinity },
  );
  await p.bothAt("success idle 1");
  await p.click("toggle");
  await act(() => p.client.invalidateQueries());
  await pause(50); // a request would have left by now
  expect(p.sent()).toEqual([1, 1]);
  await p.click("toggle");
  await p.bothAt("success idle 2");
  await p.click("toggle");
  await act(() => p.client.invalidateQueries({ refetchType: "all" }));
  expect(p.sent()).toEqual([3, 3]);
  expect(p.sides.map((o) => p.client.getQueryData<Body>(o.queryKey)?.n)).toEqual([3, 3]);
  await p.click("toggle");
  await p.bothAt("success idle 3");
  await pause(50);
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([3, 3]);
});

it("invalidateQueries and refetchQueries with cancelRefetch: false while a refetch is in flight join it: nothing more is sent, its answer shows", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>;
    },
    "/cancel-refetch-false",
  );
  await p.bothAt("success idle 1");
  for (const method of ["invalidateQueries", "refetchQueries"] as const) {
    server.held = [];
    await p.click("refetch");
    await waitFor(() => expect(server.held).toHaveLength(2));
    let settled: Promise<void> = Promise.resolve();
    act(() => void (settled = p.client[method](undefined, { cancelRefetch: false })));
    await pause(50); // a request would have left by now
    expect(server.held).toHaveLength(2);
    await act(() => server.held!.splice(0).forEach((answer) => answer()));
    server.held = null;
    await act(() => settled);
    const n = method === "invalidateQueries" ? 2 : 3;
    await p.bothAt(`success idle ${n}`);
    expect(p.sent()).toEqual([n, n]);
  }
  expect(p.logs[0]).toEqual(p.logs[1]);
});

it("fetchQuery fills a disabled pane: it shows the answer without a fetch of its own; a failing fetchQuery rejects, prefetchQuery does not", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery({ ...sides[which], enabled: false });
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.error ? "error" : "-"}`);
      return null;
    },
    "/fetch-disabled",
    { retry: false },
  );
  await p.bothAt("pending idle - -");
  const answers = await act(() => Promise.all(p.sides.map((o) => p.client.fetchQuery(o))));
  expect(answers.map((a) => a.n)).toEqual([1, 1]);
  await p.bothAt("success idle 1 -");
  server.failing = true;
  const failures = await act(() =>
    Promise.all(
      p.sides.map((o) =>
        p.client.fetchQuery({ ...o, staleTime: 0 }).then(
          () => "resolved",
          (e: unknown) => `rejected ${e instanceof Error}`,
        ),
      ),
    ),
  );
  expect(failures).toEqual(["rejected true", "rejected true"]);
  await p.bothAt("error idle 1 error");
  const prefetched = await act(() => Promise.all(p.sides.map((o) => p.client.prefetchQuery({ ...o, staleTime: 0 }))));
  expect(prefetched).toEqual([undefined, undefined]);
  expect(p.sides.map((o) => p.client.getQueryState(o.queryKey)?.status)).toEqual(["error", "error"]);
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([3, 3]);
});

it("a QueryObserver outside React: the same results in order, refetch() included; observers in two tabs send one request", async () => {
  const [a, b] = twoTabs();
  const sides = sideBySide(server, a, "/observer");
  const [clientA, clientB] = [new QueryClient(), new QueryClient()];
  const seen: string[][] = [[], [], []];
  const watch = (observer: QueryObserver<Body>, log: string[]) =>
    observer.subscribe((r: QueryObserverResult<Body>) => {
      const line = unprefixed(`${r.status} ${r.fetchStatus} ${r.data?.n ?? "-"}`);
      if (log.at(-1) !== line) log.push(line);
    });
  const observers = [
    new QueryObserver<Body>(clientA, sides[0] as never),
    new QueryObserver<Body>(clientA, sides[1] as never),
    new QueryObserver<Body>(clientB, sideBySide(server, b, "/observer")[0] as never),
  ];
  const stop = observers.map((o, i) => watch(o, seen[i]!));
  await waitFor(() => expect(seen.map((l) => l.at(-1))).toEqual(["success idle 1", "success idle 1", "success idle 1"]));
  server.held = []; // the fetching state reaches the listeners before the answer, whatever the load
  const refetched = Promise.all(observers.slice(0, 2).map((o) => o.refetch()));
  await waitFor(() => expect(seen.slice(0, 2).map((l) => l.at(-1))).toEqual(["success fetching 1", "success fetching 1"]));
  server.release();
  await refetched;
  await waitFor(() => expect(seen.map((l) => l.at(-1))).toEqual(["success idle 2", "success idle 2", "success idle 2"]));
  expect(seen[0]).toEqual(seen[1]);
  expect(seen[0]).toEqual(["pending fetching -", "success idle 1", "success fetching 1", "success idle 2"]);
  // The other tab's observer joined the first request and was given the refetch's answer.
  expect(server.seen.filter((s) => s.startsWith("/s"))).toHaveLength(2);
  stop.forEach((unsubscribe) => unsubscribe());
  [clientA, clientB].forEach((c) => c.clear());
});

it("refetchQueries() and invalidateQueries({ refetchType: 'all' }) in a tab whose pane showed another tab's result, unmounted since: each refetches it, as a plain query it fetched", async () => {
  const [a, b] = twoTabs();
  const logs: string[][] = [[], [], [], []];
  function Tab({ store, first, shown }: { store: typeof a; first: number; shown: boolean }) {
    const sides = sideBySide(server, store, "/shown-then-gone", { staleTime: Infinity });
    return shown
      ? sides.map((o, i) => (
          <Shown
            key={i}
            log={(s) => void (logs[first + i]!.at(-1) !== unprefixed(s) && logs[first + i]!.push(unprefixed(s)))}
            options={o}
          />
        ))
      : null;
  }
  render(app(a, <Tab store={a} first={0} shown />));
  await waitFor(() => expect(logs.slice(0, 2).map((l) => l.at(-1))).toEqual(["success idle 1", "success idle 1"]));
  const clientB = new QueryClient();
  const { rerender } = render(app(b, <Tab store={b} first={2} shown />, clientB));
  // The shared pane shows tab a's result, the plain one fetched its own.
  await waitFor(() => expect(logs.slice(2).map((l) => l.at(-1))).toEqual(["success idle 1", "success idle 2"]));
  rerender(app(b, <Tab store={b} first={2} shown={false} />, clientB));
  const keys = sideBySide(server, b, "/shown-then-gone").map((o) => o.queryKey);
  const sent = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
  expect(sent()).toEqual([1, 2]);
  await act(() => clientB.refetchQueries());
  expect(sent()).toEqual([2, 3]);
  expect(keys.map((k) => clientB.getQueryData<Body>(k)?.n)).toEqual([2, 3]);
  await act(() => clientB.invalidateQueries({ refetchType: "all" }));
  expect(sent()).toEqual([3, 4]);
  expect(keys.map((k) => clientB.getQueryData<Body>(k)?.n)).toEqual([3, 4]);
});
