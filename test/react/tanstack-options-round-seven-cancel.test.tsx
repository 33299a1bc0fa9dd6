// @vitest-environment jsdom
/**
 * The seventh round's first loads cut short and suspense refetches, on sharedQueryOptions beside a
 * plain query function over fetch, against a real HTTP server on 127.0.0.1 that counts what it is
 * sent (answers held until the test lets them go): a pane unmounted during its first load and
 * mounted again, `cancelQueries()` during a first load then `refetch()`, `invalidateQueries` and
 * `refetchQueries` during a first load, and a failed refetch under `useSuspenseQuery`. Each step
 * waits for both sides' state (no clock); each sends as many requests and shows the same states.
 */
import { useQuery, useSuspenseQuery, type UseSuspenseQueryOptions } from "@tanstack/react-query";
import { act, waitFor } from "@testing-library/react";
import { Suspense, useState } from "react";
import { expect, it } from "vitest";
import { bothWays } from "../harness/both-ways.tsx";
import { Boundary } from "../harness/boundary.tsx";
import { pause, settled, sideBySideServerForFile, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

/** A query of `options`, its status, fetch status and count logged. */
function Shown({ log, options }: { log: (s: string) => void; options: Options }) {
  const q = useQuery(options);
  log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
  return null;
}

/** Lets the held answers go and stops holding. */
const answerAll = () => {
  server.held!.splice(0).forEach((answer) => answer());
  server.held = null;
};

it("a pane unmounted during its first load: the query goes back to pending idle; mounted again, it sends a new request, whose answer shows", async () => {
  server.held = [];
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
    "/unmount-first-load",
  );
  await waitFor(() => expect(server.held).toHaveLength(2));
  await p.click("toggle");
  const states = () => p.sides.map((o) => p.client.getQueryState(o.queryKey)).map((s) => `${s?.status} ${s?.fetchStatus}`);
  await waitFor(() => expect(states()).toEqual(["pending idle", "pending idle"]));
  await p.click("toggle");
  await waitFor(() => expect(server.held).toHaveLength(4));
  answerAll();
  await p.bothAt("success idle 2");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.logs[0]).toEqual(["pending fetching -", "success idle 2"]);
  expect(p.sent()).toEqual([2, 2]);
});

it("cancelQueries() during a first load: pending idle at once; refetch() then sends a new request, whose answer shows", async () => {
  server.held = [];
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>;
    },
    "/cancel-first-load",
  );
  await waitFor(() => expect(server.held).toHaveLength(2));
  await act(() => p.client.cancelQueries());
  await p.bothAt("pending idle -");
  await p.click("refetch");
  await waitFor(() => expect(server.held).toHaveLength(4));
  answerAll();
  await p.bothAt("success idle 2");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.logs[0]).toEqual(["pending fetching -", "pending idle -", "pending fetching -", "success idle 2"]);
  expect(p.sent()).toEqual([2, 2]);
});

for (const method of ["invalidateQueries", "refetchQueries"] as const)
  it(`${method} during a first load joins it: nothing more is sent, and its promise settles with the answer shown`, async () => {
    server.held = [];
    const p = bothWays(
      server,
      function Pane({ which, log, sides }) {
        const q = useQuery(sides[which]);
        log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.isStale}`);
        return null;
      },
      `/${method}-first-load`,
      { staleTime: 60_000 },
    );
    await waitFor(() => expect(server.held).toHaveLength(2));
    let settled = false;
    act(() => void p.client[method]().then(() => (settled = true)));
    await pause(50); // a request would have left by now
    expect([server.held!.length, settled]).toEqual([2, false]);
    answerAll();
    await waitFor(() => expect(settled).toBe(true));
    expect(p.sides.map((o) => p.client.getQueryData<Body>(o.queryKey)?.n)).toEqual([1, 1]);
    await p.bothAt("success idle 1 false");
    expect(p.logs[0]).toEqual(p.logs[1]);
    expect(p.logs[0]).toEqual(["pending fetching - true", "success idle 1 false"]);
    expect(p.sent()).toEqual([1, 1]);
  });

function Suspending({ log, options }: { log: (s: string) => void; options: Options }) {
  // Neither side is skipToken, which the suspending hooks refuse.
  const q = useSuspenseQuery(options as unknown as UseSuspenseQueryOptions<Body>);
  log(`${q.status} ${q.fetchStatus} ${q.data.n} ${q.isRefetchError}`);
  return null;
}

it("useSuspenseQuery: a failed refetch keeps the data shown, with the error flags, and reaches no error boundary", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      return (
        <Boundary show={() => <>{log("boundary")}</>}>
          <Suspense fallback={<>{log("fallback")}</>}>
            <Suspending log={log} options={sides[which]} />
          </Suspense>
        </Boundary>
      );
    },
    "/suspense-refetch-error",
    { retry: false },
  );
  await p.bothAt("success idle 1 false");
  server.failing = true;
  await act(() => p.client.refetchQueries());
  await p.bothAt("error idle 1 true");
  expect(settled(p.logs[0]!)).toEqual(settled(p.logs[1]!));
  expect(p.logs[0]!.slice(0, 2)).toEqual(["fallback", "success idle 1 false"]);
  expect(p.logs[0]).not.toContain("boundary");
  // Under React 19 TanStack sends one request more after the failure than under React 18: as many both ways.
  const [shared, plain] = p.sent();
  expect(shared).toBe(plain);
});
