// @vitest-environment jsdom
/**
 * A sixth round of what a TanStack Query user meets every day, on sharedQueryOptions beside a plain
 * query function over fetch, against a real HTTP server on 127.0.0.1 that counts what it is sent:
 * `refetchOnMount: false` on a pane mounted over stale data, the error flags (`isLoadingError`,
 * `isRefetchError`, `isRefetching`) through failures and recoveries, what `refetch()`'s promise
 * gives (and `throwOnError: true` rejecting), `placeholderData` on a disabled query, dependent
 * queries (`enabled` on the first one's data) and `setQueryData` with an updater. Each step waits
 * for both sides' state (no clock); each sends as many requests and renders the same states, and
 * where two tabs ask, the shared side sends one request.
 */
import { QueryClient, useQuery, useQueryClient } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { expect, it } from "vitest";
import { bothWays } from "../harness/both-ways.tsx";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, text, twoTabs, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

/** Another observer of `options`, mounted later, its state shown under `id`. */
function Later({ id, options }: { id: string; options: Options }) {
  const q = useQuery(options);
  return <span data-testid={id}>{`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`}</span>;
}

it("refetchOnMount: false: a pane mounted over stale data shows it and sends nothing; mounted with true, it refetches", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const [later, setLater] = useState<boolean | null>(null);
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      return (
        <>
          {later !== null && <Later key={String(later)} id={`later ${which}`} options={{ ...sides[which], refetchOnMount: later }} />}
          <button onClick={() => setLater(false)}>{`off ${which}`}</button>
          <button onClick={() => setLater(true)}>{`on ${which}`}</button>
        </>
      );
    },
    "/mount-false",
  );
  await p.bothAt("success idle 1");
  await p.click("off");
  await pause(50); // a request would have left by now
  expect([text("later 0"), text("later 1")]).toEqual(["success idle 1", "success idle 1"]);
  expect(p.sent()).toEqual([1, 1]);
  await p.click("on");
  await p.bothAt("success idle 2");
  expect([text("later 0"), text("later 1")]).toEqual(["success idle 2", "success idle 2"]);
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([2, 2]);
});

it("isLoadingError, isRefetchError and isRefetching through a failed first load, a success, a failed refetch and a success: the same flags", async () => {
  server.failing = true;
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      const flags = [q.isLoadingError, q.isRefetchError, q.isRefetching, q.isLoading].map(Number).join("");
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${flags}`);
      return <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>;
    },
    "/flags",
    { retry: false },
  );
  await p.bothAt("error idle - 1000");
  // Each refetch's answer waits until both panes show it fetching: TanStack tells its observers on
  // a later task, and an answer from 127.0.0.1 could otherwise land first on a loaded machine.
  server.holdFailures = true;
  const refetch = async (fetching: string, settled: string) => {
    server.held = [];
    await p.click("refetch");
    await p.bothAt(fetching);
    server.release();
    await p.bothAt(settled);
  };
  server.failing = false;
  await refetch("pending fetching - 0001", "success idle 2 0000");
  server.failing = true;
  await refetch("success fetching 2 0010", "error idle 2 0100");
  server.failing = false;
  await refetch("error fetching 2 0110", "success idle 4 0000");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([4, 4]);
});

it("refetch()'s promise gives the new result, a failure included (it resolves), and with throwOnError: true rejects with the error", async () => {
  const results: string[][] = [[], []];
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const q = useQuery(sides[which]);
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`);
      const push = (s: string) => results[which]!.push(s);
      return (
        <>
          <button
            onClick={() => void q.refetch().then((r) => push(`${r.status} ${r.data?.n} ${r.error ? "error" : "-"}`))}
          >{`refetch ${which}`}</button>
          <button
            onClick={() =>
              void q.refetch({ throwOnError: true }).then(
                (r) => push(`resolved ${r.status} ${r.data?.n}`),
                (e: unknown) => push(`rejected ${e instanceof Error}`),
              )
            }
          >{`throwing ${which}`}</button>
        </>
      );
    },
    "/refetch-result",
    { retry: false },
  );
  await p.bothAt("success idle 1");
  const bothGave = (r: string) => waitFor(() => expect(results.map((l) => l.at(-1))).toEqual([r, r]));
  await p.click("refetch");
  await bothGave("success 2 -");
  server.failing = true;
  await p.click("refetch");
  await bothGave("error 2 error");
  await p.click("throwing");
  await bothGave("rejected true");
  server.failing = false;
  await p.click("throwing");
  await bothGave("resolved success 5");
  expect(results[0]).toEqual(results[1]);
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([5, 5]);
});

it("placeholderData on a disabled query: success with isPlaceholderData and nothing sent, then enabled, the answer replaces it", async () => {
  const p = bothWays(
    server,
    function Pane({ which, log, sides }) {
      const [on, setOn] = useState(false);
      const q = useQuery({ ...sides[which], enabled: on, placeholderData: { path: "placeholder", n: 0 } });
      log(`${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"} ${q.isPlaceholderData}`);
      return <button onClick={() => setOn(true)}>{`enable ${which}`}</button>;
    },
    "/placeholder-disabled",
  );
  await p.bothAt("success idle 0 true");
  await pause(50); // a request would have left by now
  expect(p.sent()).toEqual([0, 0]);
  server.held = []; // the fetching state shows before the answer, whatever the load
  await p.click("enable");
  await p.bothAt("success fetching 0 true");
  server.release();
  await p.bothAt("success idle 1 false");
  expect(p.logs[0]).toEqual(["success idle 0 true", "success fetching 0 true", "success idle 1 false"]);
  expect(p.logs[1]).toEqual(p.logs[0]);
  expect(p.sent()).toEqual([1, 1]);
});

/** A user query, then the projects of that user (enabled once the user is known), both ways. */
function Dependent({ which, log, store }: { which: 0 | 1; log: (s: string) => void; store: Parameters<typeof sideBySide>[1] }) {
  const user = useQuery(sideBySide(server, store, "/user")[which]);
  const projects = useQuery(
    sideBySide(server, store, `/projects-of-${user.data?.n ?? "nobody"}`, { enabled: user.data !== undefined })[which],
  );
  log(`${user.status} ${projects.status} ${projects.fetchStatus} ${projects.data?.path.replace(/\/[sp]\//, "/") ?? "-"}`);
  return null;
}

it("dependent queries (enabled once the first has data): the same states; two tabs send one request per query", async () => {
  const p = bothWays(server, ({ which, log, store }) => <Dependent which={which} log={log} store={store} />, "/unused");
  const b: string[] = [];
  render(app(p.tabs[1], <Dependent which={0} log={(s) => void (b.at(-1) !== s && b.push(s))} store={p.tabs[1]} />));
  await p.bothAt("success success idle /projects-of-1");
  await waitFor(() => expect(b.at(-1)).toBe("success success idle /projects-of-1"));
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.logs[0]).toEqual(["pending pending idle -", "success pending fetching -", "success success idle /projects-of-1"]);
  await pause(50); // a request would have left by now
  expect(server.seen.filter((s) => s.startsWith("/s")).sort()).toEqual(["/s/projects-of-1", "/s/user"]);
});

it("setQueryData with an updater on a shared key: it gets the shown data, sends nothing, and another tab keeps its own until a refetch", async () => {
  function Pane({ which, id }: { which: 0 | 1; id: string }) {
    const client = useQueryClient();
    const options = sideBySide(server, tabs[id === "b" ? 1 : 0], "/updater")[which];
    const q = useQuery(options);
    const bump = () => client.setQueryData<Body>(options.queryKey, (old) => old && { ...old, n: old.n + 100 });
    return (
      <>
        <span data-testid={`${id} ${which}`}>{`${q.status} ${q.data?.n ?? "-"}`}</span>
        <button onClick={bump}>{`${id} bump ${which}`}</button>
        <button onClick={() => void q.refetch()}>{`${id} refetch ${which}`}</button>
      </>
    );
  }
  const tabs = twoTabs();
  const [clientA, clientB] = [new QueryClient(), new QueryClient()];
  render(
    app(
      tabs[0],
      ([0, 1] as const).map((w) => <Pane key={w} which={w} id="a" />),
      clientA,
    ),
  );
  render(
    app(
      tabs[1],
      ([0, 1] as const).map((w) => <Pane key={w} which={w} id="b" />),
      clientB,
    ),
  );
  const shown = () => ["a 0", "a 1", "b 0", "b 1"].map(text);
  // Plain: each tab fetched its own (1, 2); shared: one request for both.
  await waitFor(() => expect(shown().map((s) => s!.split(" ")[0])).toEqual(["success", "success", "success", "success"]));
  const [plainA, plainB] = ["a 1", "b 1"].map((id) => Number(text(id)!.split(" ")[1]));
  await act(() => ["a bump 0", "a bump 1"].forEach((label) => fireEvent.click(screen.getByText(label))));
  await pause(50); // a request would have left by now
  expect(shown()).toEqual(["success 101", `success ${plainA! + 100}`, "success 1", `success ${plainB}`]);
  const key = (which: 0 | 1) => sideBySide(server, tabs[0], "/updater")[which].queryKey;
  expect(clientA.getQueryData<Body>(key(0))?.n).toBe(101);
  expect(server.seen.filter((s) => s.startsWith("/s"))).toHaveLength(1);
  await act(() => fireEvent.click(screen.getByText("a refetch 0")));
  // The shared side's refetch reaches tab b too, with no request of its own.
  await waitFor(() => expect([text("a 0"), text("b 0")]).toEqual(["success 2", "success 2"]));
  expect(server.seen.filter((s) => s.startsWith("/s"))).toHaveLength(2);
});
