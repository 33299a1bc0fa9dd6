// @vitest-environment jsdom
/**
 * A fifth round of what a TanStack Query user meets every day, on sharedQueryOptions beside a plain
 * query function over fetch, against a real HTTP server on 127.0.0.1 that counts what it is sent:
 * `staleTime: "static"` under invalidateQueries, refetchQueries, the three `"always"` options and
 * resetQueries (with an initialData of the app's or none, mounted or not), `staleTime` as a
 * function of the query at a focus and a reconnect (focusManager and onlineManager events as
 * TanStack fires them), `refetch()` while a fetch runs (`cancelRefetch` false and true),
 * `refetchQueries({ stale: true })` and `invalidateQueries({ exact: true })` beside a prefix
 * sibling. Each step waits for both sides' state (no clock); each sends as many requests and
 * renders the same states, but where a test's name says they differ by design.
 */
import { focusManager, onlineManager, QueryClient, useQuery, useQueryClient, type Query } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, expect, it } from "vitest";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, twoTabs, unprefixed, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => {
  onlineManager.setOnline(true);
  focusManager.setFocused(undefined);
});

type PaneProps = { which: 0 | 1; log: (s: string) => void; sides: [Options, Options] };

/** `Pane` both ways in one tab (0 shared, 1 plain); each one's distinct logged states. */
function bothWays(Pane: (props: PaneProps) => React.ReactNode, path: string, options: object = {}) {
  const [a] = twoTabs();
  const sides = sideBySide(server, a, path, options);
  const logs: string[][] = [[], []];
  const log = (which: 0 | 1) => (s: string) => void (logs[which]!.at(-1) !== unprefixed(s) && logs[which]!.push(unprefixed(s)));
  const client = new QueryClient();
  render(
    app(
      a,
      <>
        <Pane which={0} log={log(0)} sides={sides} />
        <Pane which={1} log={log(1)} sides={sides} />
      </>,
      client,
    ),
  );
  const click = (label: string) => act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`${label} ${w}`))));
  const bothAt = (state: string) => waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual([state, state]));
  const sent = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
  return { logs, click, bothAt, sent, client, sides };
}

const focus = () => act(() => (focusManager.setFocused(false), focusManager.setFocused(true)));
const reconnect = () => act(() => (onlineManager.setOnline(false), onlineManager.setOnline(true)));

it('staleTime "static": invalidateQueries, refetchQueries, a focus, reconnect and mount with "always" send nothing; refetch() sends one', async () => {
  const p = bothWays(
    function Pane({ which, log, sides }) {
      const [mounts, setMounts] = useState(1);
      const q = useQuery({ ...sides[which], refetchOnWindowFocus: "always", refetchOnReconnect: "always", refetchOnMount: "always" });
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.isStale}`);
      return (
        <>
          {Array.from({ length: mounts }, (_, i) => (
            <Extra key={i} options={sides[which]} />
          ))}
          <button onClick={() => setMounts((n) => n + 1)}>{`mount ${which}`}</button>
          <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>
        </>
      );
    },
    "/static",
    { staleTime: "static" },
  );
  await p.bothAt("success idle 1 false");
  await act(() => p.client.invalidateQueries());
  await act(() => p.client.refetchQueries());
  await focus();
  await reconnect();
  await p.click("mount");
  await pause(50); // a request would have left by now
  expect(p.sent()).toEqual([1, 1]);
  await p.click("refetch");
  await p.bothAt("success idle 2 false");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([2, 2]);
});

/** Another observer of the same options, mounted later, with refetchOnMount "always". */
function Extra({ options }: { options: Options }) {
  useQuery({ ...options, refetchOnMount: "always" });
  return null;
}

it("staleTime as a function of the query: a focus and a reconnect refetch while it says stale, and not once it says fresh", async () => {
  const p = bothWays(
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.isStale}`);
      return null;
    },
    "/stale-fn",
    { staleTime: (query: Query<Body>) => ((query.state.data?.n ?? 0) < 3 ? 0 : Infinity) },
  );
  await p.bothAt("success idle 1 true");
  await focus();
  await p.bothAt("success idle 2 true");
  await reconnect();
  await p.bothAt("success idle 3 false");
  await focus();
  await reconnect();
  await pause(50);
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([3, 3]);
});

it("refetch() while the first load runs joins it, cancelRefetch or not (TanStack cancels only a fetch of data it shows)", async () => {
  server.held = [];
  const p = bothWays(function Pane({ which, log, sides }) {
    const q = useQuery(sides[which]);
    log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
    return (
      <>
        <button onClick={() => void q.refetch({ cancelRefetch: false })}>{`join ${which}`}</button>
        <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>
      </>
    );
  }, "/first-load");
  await waitFor(() => expect(server.held).toHaveLength(2));
  await p.click("join");
  await p.click("refetch");
  await pause(50); // a request would have left by now
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  server.held = null;
  await p.bothAt("success idle 1");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([1, 1]);
});

it("while a refetch runs over shown data, refetch({ cancelRefetch: false }) joins it and refetch() sends another, whose answer shows", async () => {
  const p = bothWays(function Pane({ which, log, sides }) {
    const q = useQuery(sides[which]);
    log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
    return (
      <>
        <button onClick={() => void q.refetch({ cancelRefetch: false })}>{`join ${which}`}</button>
        <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>
      </>
    );
  }, "/refetch-in-flight");
  await p.bothAt("success idle 1");
  const answerHeld = async (count: number) => {
    await waitFor(() => expect(server.held).toHaveLength(count));
    await act(() => server.held!.splice(0).forEach((answer) => answer()));
  };
  server.held = [];
  await p.click("refetch");
  await waitFor(() => expect(server.held).toHaveLength(2));
  await p.click("join");
  await pause(50); // a request would have left by now
  await answerHeld(2);
  await p.bothAt("success idle 2");
  await p.click("refetch");
  await waitFor(() => expect(server.held).toHaveLength(2));
  await p.click("refetch");
  await answerHeld(4);
  server.held = null;
  await p.bothAt("success idle 4");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([4, 4]);
});

it("refetchQueries({ stale: true }) refetches the stale query alone, and invalidateQueries({ exact: true }) leaves a prefix sibling alone", async () => {
  const [a] = twoTabs();
  const logs: string[][] = [[], []];
  function Pane({ which }: { which: 0 | 1 }) {
    const client = useQueryClient();
    const key = (...rest: string[]) => ["round-five", which, ...rest];
    const fresh = useQuery({ ...sideBySide(server, a, "/fresh", { staleTime: Infinity })[which], queryKey: key("fresh") });
    const stale = useQuery({ ...sideBySide(server, a, "/stale")[which], queryKey: key("stale") });
    const child = useQuery({ ...sideBySide(server, a, "/child", { staleTime: Infinity })[which], queryKey: key("stale", "child") });
    const line = [fresh, stale, child].map((q) => `${q.data?.n ?? "-"}${q.isStale ? "s" : ""}`).join(" ");
    if (logs[which]!.at(-1) !== line) logs[which]!.push(line);
    return (
      <>
        <button onClick={() => void client.refetchQueries({ queryKey: key(), stale: true })}>{`stale ${which}`}</button>
        <button onClick={() => void client.invalidateQueries({ queryKey: key("stale"), exact: true })}>{`exact ${which}`}</button>
      </>
    );
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
  const bothAt = (line: string) => waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual([line, line]));
  await bothAt("1 1s 1");
  logs.forEach((l) => l.splice(0, l.length - 1)); // the first answers arrive in any order
  await act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`stale ${w}`))));
  await bothAt("1 2s 1");
  await act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`exact ${w}`))));
  await bothAt("1 3s 1");
  await pause(50);
  expect(logs[0]).toEqual(logs[1]);
  const sent = (side: string) => server.seen.filter((path) => path.startsWith(side)).map((path) => path.slice(2));
  expect(sent("/s").sort()).toEqual(sent("/p").sort());
  expect(sent("/s").sort()).toEqual(["/child", "/fresh", "/stale", "/stale", "/stale"]);
});

it('staleTime "static": resetQueries sends one request, whose answer shows (meanwhile the shared query shows the recorded result, by design)', async () => {
  const p = bothWays(
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return null;
    },
    "/static-reset",
    { staleTime: "static" },
  );
  await p.bothAt("success idle 1");
  await act(() => p.client.resetQueries());
  // Before, TanStack's refetch passed over the shared query (static, the recorded result shown): 1, unsent.
  await p.bothAt("success idle 2");
  // Meanwhile the shared query shows the recorded result, where a plain one has no data.
  expect(p.logs[0]!.slice(1)).not.toContain("pending fetching -");
  expect(p.sent()).toEqual([2, 2]);
});

it('staleTime "static": resetQueries with nothing mounted sends nothing, the next mount one request, and invalidateQueries then nothing (meanwhile the shared query shows the recorded result, by design)', async () => {
  const p = bothWays(
    function Pane({ which, log, sides }) {
      const [shown, setShown] = useState(true);
      return (
        <>
          {shown && <Shown log={log} options={sides[which]} />}
          <button onClick={() => setShown((s) => !s)}>{`toggle ${which}`}</button>
        </>
      );
    },
    "/static-reset-unmounted",
    { staleTime: "static" },
  );
  await p.bothAt("success idle 1");
  await p.click("toggle");
  await act(() => p.client.resetQueries());
  await pause(50); // a request would have left by now
  expect(p.sent()).toEqual([1, 1]);
  await p.click("toggle");
  // Before, the shared query stayed at 1 on its mount, unsent, and the invalidation below sent its request.
  await p.bothAt("success idle 2");
  await act(() => p.client.invalidateQueries());
  await pause(50);
  expect(p.logs[0]).toEqual(["pending fetching -", "success idle 1", "success fetching 1", "success idle 2"]);
  expect(p.logs[1]).toEqual(["pending fetching -", "success idle 1", "pending fetching -", "success idle 2"]);
  expect(p.sent()).toEqual([2, 2]);
});

/** A query of `options`, its status, fetch status and count logged. */
function Shown({ log, options }: { log: (s: string) => void; options: Options }) {
  const q = useQuery(options);
  log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
  return null;
}

it('staleTime "static" with an initialData of the app\'s: resetQueries sends nothing, both ways (the shared query shows the newer recorded result, by design)', async () => {
  const p = bothWays(
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>;
    },
    "/static-initial",
    { staleTime: "static", initialData: { path: "initial", n: 0 } },
  );
  await p.bothAt("success idle 0");
  await p.click("refetch");
  await p.bothAt("success idle 1");
  await act(() => p.client.resetQueries());
  await waitFor(() => expect(p.logs.map((l) => l.at(-1))).toEqual(["success idle 1", "success idle 0"]));
  await pause(50); // a request would have left by now
  expect(p.logs[0]).toEqual(["success idle 0", "success fetching 0", "success idle 1"]);
  expect(p.sent()).toEqual([1, 1]);
});
