// @vitest-environment jsdom
/**
 * The seventh round's cache entries and lists, on sharedQueryOptions beside a plain query function
 * over fetch, against a real HTTP server on 127.0.0.1 that counts what it is sent: `setQueryData`
 * with an `updatedAt` of its own before the first mount, `initialData` as a function,
 * `refetchOnMount` as a function of the query, `useQueries` whose list of keys grows and
 * `useSuspenseQueries` with one key failing. Each step waits for both sides' state (no clock);
 * each sends as many requests and renders the same states, and where two tabs ask, the shared
 * side sends one request per key.
 */
import { useQueries, useQuery, useSuspenseQueries, type Query, type UseSuspenseQueryOptions } from "@tanstack/react-query";
import { render, waitFor } from "@testing-library/react";
import { Suspense, useState } from "react";
import { afterEach, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { bothWays } from "../harness/both-ways.tsx";
import { Boundary } from "../harness/boundary.tsx";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, settled, sideBySideServerForFile, unprefixed, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => void vi.restoreAllMocks());

/** A query of `options`, its status, fetch status and count logged. */
function Shown({ log, options }: { log: (s: string) => void; options: Options }) {
  const q = useQuery(options);
  log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
  return null;
}

/** A pane that mounts `Shown` over `options` once its button is clicked. */
function MountLater({ which, log, options }: { which: 0 | 1; log: (s: string) => void; options: Options }) {
  const [shown, setShown] = useState(false);
  return (
    <>
      {shown && <Shown log={log} options={options} />}
      <button onClick={() => setShown(true)}>{`mount ${which}`}</button>
    </>
  );
}

for (const [age, fetched] of [
  [10_000, false],
  [120_000, true],
] as const)
  it(`setQueryData with updatedAt ${age / 1000} s ago before the first mount (staleTime 60 s): the data set shows and ${fetched ? "is refetched" : "nothing is sent"}`, async () => {
    const set = { path: "set", n: 0 };
    const p = bothWays(
      server,
      function Pane({ which, log, sides }) {
        return <MountLater which={which} log={log} options={sides[which]} />;
      },
      `/set-updated-at-${age}`,
      { staleTime: 60_000 },
    );
    p.sides.forEach((o) => p.client.setQueryData(o.queryKey, set, { updatedAt: Date.now() - age }));
    await p.click("mount");
    await p.bothAt(fetched ? "success idle 1" : "success idle 0");
    await pause(50); // a request would have left by now
    expect(p.logs[0]).toEqual(p.logs[1]);
    expect(p.logs[0]).toEqual(fetched ? ["success fetching 0", "success idle 1"] : ["success idle 0"]);
    expect(p.sent()).toEqual(fetched ? [1, 1] : [0, 0]);
  });

for (const given of ["in sharedQueryOptions' options", "spread over them"] as const)
  it(`initialData as a function (${given}): called once per query, its value shown and, stale, refetched at the mount`, async () => {
    let calls = 0;
    const initialData = () => (calls++, { path: "initial", n: 0 });
    const inOptions = given === "in sharedQueryOptions' options";
    const p = bothWays(
      server,
      function Pane({ which, log, sides }) {
        const q = useQuery(inOptions ? sides[which] : { ...sides[which], initialData });
        log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
        return null;
      },
      `/initial-fn-${inOptions}`,
      inOptions ? { initialData } : {},
    );
    await p.bothAt("success idle 1");
    expect(p.logs[0]).toEqual(p.logs[1]);
    expect(p.logs[0]).toEqual(["success fetching 0", "success idle 1"]);
    expect(calls).toBe(2);
    expect(p.sent()).toEqual([1, 1]);
  });

it("refetchOnMount as a function of the query, in sharedQueryOptions' options: a second pane mounted over stale data refetches while it says true, not once it says false", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const [mounts, setMounts] = useState(0);
      const options = sides[which];
      return (
        <>
          <Shown log={log} options={options} />
          {mounts > 0 && <Shown key={mounts} log={() => {}} options={options} />}
          <button onClick={() => setMounts((m) => m + 1)}>{`mount ${which}`}</button>
        </>
      );
    },
    "/mount-fn",
    { refetchOnMount: (q: Query<Body, Error>) => q.state.dataUpdateCount < 2 },
  );
  await p.bothAt("success idle 1");
  await p.click("mount");
  await p.bothAt("success idle 2");
  await p.click("mount");
  await pause(50); // a request would have left by now
  expect(settled(p.logs[0]!)).toEqual(settled(p.logs[1]!));
  expect(p.sent()).toEqual([2, 2]);
});

/** useQueries over `/list-${i}` for each i below its count, which a click raises. */
function Growing({
  which,
  log,
  store,
  label = `more ${which}`,
}: {
  which: 0 | 1;
  log: (s: string) => void;
  store: SharedFetchStoreWithExtras;
  label?: string;
}) {
  const [count, setCount] = useState(1);
  const results = useQueries({
    queries: Array.from({ length: count }, (_, i) => sideBySide(server, store, `/list-${i}`)[which]),
    combine: (rs) => rs.map((r) => `${r.status}:${r.data ? unprefixed(r.data.path) : "-"}`).join(" "),
  });
  log(results);
  return <button onClick={() => setCount((c) => c + 1)}>{label}</button>;
}

it("useQueries whose list grows: the new key is fetched, the first is not fetched again; two tabs send one request per key", async () => {
  const p = bothWays(server, (props) => <Growing {...props} />, "/unused");
  const b: string[] = [];
  render(app(p.tabs[1], <Growing which={0} log={(s) => void (b.at(-1) !== s && b.push(s))} store={p.tabs[1]} label="more b" />));
  await p.bothAt("success:/list-0");
  await waitFor(() => expect(b.at(-1)).toBe("success:/list-0"));
  await p.click("more");
  await p.bothAt("success:/list-0 success:/list-1");
  await p.click("more");
  await p.bothAt("success:/list-0 success:/list-1 success:/list-2");
  expect(p.logs[0]).toEqual(p.logs[1]);
  await pause(50); // a request would have left by now
  expect(server.seen.filter((s) => s.startsWith("/p")).sort()).toEqual(["/p/list-0", "/p/list-1", "/p/list-2"]);
  expect(server.seen.filter((s) => s.startsWith("/s")).sort()).toEqual(["/s/list-0", "/s/list-1", "/s/list-2"]);
});

type SideProps = { which: 0 | 1; log: (s: string) => void; store: SharedFetchStoreWithExtras };

/** useSuspenseQueries over a key that answers and one that fails. */
function BothKeys({ which, log, store }: SideProps) {
  const shown = useSuspenseQueries({
    // Neither side is skipToken, which the suspending hooks refuse.
    queries: ["/sq-ok", "/sq-bad"].map(
      (path) => sideBySide(server, store, path, { retry: false })[which] as unknown as UseSuspenseQueryOptions<Body>,
    ),
    combine: (rs) => rs.map((r) => r.data.n).join(","),
  });
  log(`shown ${shown}`);
  return null;
}

/** BothKeys under an error boundary. */
function OneFailing(props: SideProps) {
  return (
    <Boundary show={(error) => <>{props.log(`boundary ${error instanceof Error}`)}</>}>
      <Suspense fallback={<>{props.log("fallback")}</>}>
        <BothKeys {...props} />
      </Suspense>
    </Boundary>
  );
}

it("useSuspenseQueries with one key failing (retry: false): the error boundary shows, as with plain queries; two tabs send one request per key", async () => {
  vi.spyOn(console, "error").mockImplementation(() => {}); // React's report of each caught error
  server.statusOf = (path) => (path.endsWith("/sq-bad") ? 500 : 0);
  const p = bothWays(server, (props) => <OneFailing {...props} />, "/unused");
  const b: string[] = [];
  render(app(p.tabs[1], <OneFailing which={0} log={(s) => void (b.at(-1) !== s && b.push(s))} store={p.tabs[1]} />));
  await p.bothAt("boundary true");
  await waitFor(() => expect(b.at(-1)).toBe("boundary true"));
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.logs[0]).toEqual(["fallback", "boundary true"]);
  expect(b).toEqual(p.logs[0]);
  await pause(50); // a request would have left by now
  expect(server.seen.filter((s) => s.startsWith("/s")).sort()).toEqual(["/s/sq-bad", "/s/sq-ok"]);
});
