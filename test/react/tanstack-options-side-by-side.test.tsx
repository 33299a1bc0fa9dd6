// @vitest-environment jsdom
/**
 * useQuery options a TanStack Query user sets every day, on sharedQueryOptions beside a plain
 * query function over fetch, against a real HTTP server on 127.0.0.1: each renders the same state
 * sequence (paths aside), and across two tabs a key is one request. Poll timing runs on the fake
 * clock with the simulated host.
 */
import {
  focusManager,
  keepPreviousData,
  onlineManager,
  QueryCache,
  QueryClient,
  useQueries,
  useQuery,
  useSuspenseQueries,
  type Query,
} from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { Suspense, useState } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sharedQueryOptions, type SharedFetchError, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { Boundary } from "../harness/boundary.tsx";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";
import {
  pause,
  sideBySide,
  sideBySideServer,
  text,
  twoTabs,
  unprefixed,
  type Body,
  type SideBySideServer,
} from "../harness/side-by-side.tsx";

let server: SideBySideServer;
beforeAll(async () => void (server = await sideBySideServer()));
afterAll(() => server.close());
afterEach(() => {
  cleanup();
  server.reset();
  onlineManager.setOnline(true);
  focusManager.setFocused(undefined);
  vi.useRealTimers();
});

/** Renders `pane(0)` (shared) and `pane(1)` (plain) in one tab and returns each one's distinct states, in order. */
function bothWays(store: SharedFetchStoreWithExtras, Pane: (props: { which: 0 | 1; log: (s: string) => void }) => React.ReactNode) {
  const logs: string[][] = [[], []];
  const log = (which: 0 | 1) => (s: string) => void (logs[which]!.at(-1) !== s && logs[which]!.push(s));
  render(
    app(
      store,
      <>
        {([0, 1] as const).map((w) => (
          <Pane key={w} which={w} log={log(w)} />
        ))}
      </>,
    ),
  );
  return logs;
}

describe("combine, select, placeholderData, structuralSharing, notifyOnChangeProps", () => {
  it("useQueries and useSuspenseQueries with combine: the same combined value; two tabs send one request per key", async () => {
    const [a, b] = twoTabs();
    function Pane({ store, id }: { store: SharedFetchStoreWithExtras; id: string }) {
      const suspended = useSuspenseQueries({
        queries: [sharedQueryOptions<Body>(store, `${server.base}/s/x`), sharedQueryOptions<Body>(store, `${server.base}/s/y`)],
        combine: (rs) => rs.map((q) => q.data.n).join(","),
      });
      const plain = useQueries({
        queries: [sideBySide(server, store, "/z")[0], sideBySide(server, store, "/z")[1]],
        combine: (rs) => rs.map((q) => q.data?.n ?? "-").join(","),
      });
      return <span data-testid={id}>{`${suspended} ${plain}`}</span>;
    }
    const suspense = (store: SharedFetchStoreWithExtras, id: string) => (
      <Suspense fallback={null}>
        <Pane store={store} id={id} />
      </Suspense>
    );
    render(
      <>
        {app(a, suspense(a, "a"))}
        {app(b, suspense(b, "b"))}
      </>,
    );
    // The plain query's second tab sent its own request (n 2); the shared keys were one request each.
    // Two rounds of requests, the second once the first unsuspended the panes: more than waitFor's
    // second on a loaded machine.
    await waitFor(() => expect([text("a"), text("b")].sort()).toEqual(["1,1 1,1", "1,1 1,2"]), { timeout: 5_000 });
    expect(server.seen.filter((p) => p.startsWith("/s")).sort()).toEqual(["/s/x", "/s/y", "/s/z"]);
  });

  it("select with a selector that changes between renders: the same values, render by render", async () => {
    const [a] = twoTabs();
    const logs = bothWays(a, function Pane({ which, log }) {
      const [times, setTimes] = useState(1);
      const q = useQuery({ ...sideBySide(server, a, "/sel", { staleTime: 60_000 })[which], select: (d: Body) => d.n * times });
      log(`${q.status} ${q.data}`);
      return <button onClick={() => setTimes(10)}>{`times ${which}`}</button>;
    });
    await waitFor(() => expect(logs[0]!.at(-1)).toBe("success 1"));
    await act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`times ${w}`))));
    await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(["success 10", "success 10"]));
    expect(logs[0]).toEqual(logs[1]);
  });

  for (const [name, placeholderData] of [
    ["keepPreviousData", keepPreviousData],
    ["a function of the previous data", (previous: Body | undefined) => previous && { ...previous, n: -previous.n }],
  ] as const)
    it(`placeholderData (${name}) while a new key loads: the same states, isPlaceholderData included`, async () => {
      const [a] = twoTabs();
      const logs = bothWays(a, function Pane({ which, log }) {
        const [page, setPage] = useState(1);
        const q = useQuery({ ...sideBySide(server, a, `/page${page}`)[which], placeholderData });
        log(unprefixed(`${q.status} ${q.data ? `${q.data.path}:${q.data.n}` : "-"} ${q.isPlaceholderData}`));
        return <button onClick={() => setPage(2)}>{`next ${which}`}</button>;
      });
      await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(Array(2).fill("success /page1:1 false")));
      await act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`next ${w}`))));
      await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(Array(2).fill("success /page2:1 false")));
      expect(logs[0]).toEqual(logs[1]);
      expect(logs[0]).toContain(`success /page1:${name === "keepPreviousData" ? 1 : -1} true`);
    });

  it("structuralSharing: a function of yours is given another tab's result too (that tab's own is false): one request", async () => {
    const [a, b] = twoTabs();
    const given: [unknown, unknown][] = [];
    const mine = (old: unknown, next: unknown) => (given.push([old, next]), next);
    function Pane({ store, id, structuralSharing }: { store: SharedFetchStoreWithExtras; id: string; structuralSharing: unknown }) {
      const q = useQuery({ ...sideBySide(server, store, "/ss", { staleTime: 60_000 })[0], structuralSharing } as never) as {
        data?: Body;
        refetch(): unknown;
      };
      return <button onClick={() => void q.refetch()}>{`${id} ${q.data?.n}`}</button>;
    }
    render(
      <>
        {app(a, <Pane store={a} id="a" structuralSharing={mine} />)}
        {app(b, <Pane store={b} id="b" structuralSharing={false} />)}
      </>,
    );
    await screen.findByText("a 1");
    await screen.findByText("b 1");
    given.length = 0;
    await act(() => fireEvent.click(screen.getByText("b 1")));
    await screen.findByText("a 2");
    expect(given).toEqual([
      [
        { path: "/s/ss", n: 1 },
        { path: "/s/ss", n: 2 },
      ],
    ]);
    expect(server.seen).toEqual(["/s/ss", "/s/ss"]);
  });

  it('notifyOnChangeProps: ["data"]: as many renders as plain useQuery', async () => {
    const [a] = twoTabs();
    const renders = [0, 0];
    bothWays(a, function Pane({ which }) {
      useQuery({ ...sideBySide(server, a, "/notify", { notifyOnChangeProps: ["data"] })[which] });
      renders[which]!++;
      return null;
    });
    await waitFor(() => expect(server.seen).toHaveLength(2));
    await pause(100);
    expect(renders[0]).toBe(renders[1]);
  });
});

describe("networkMode with the browser offline, throwOnError, meta, retryOnMount", () => {
  // While offline: "always" runs every attempt, "offlineFirst" the first and pauses its retries,
  // "online" pauses before any; back online, the paused ones resume and each ends in the error
  // after its 3 attempts (refetchOnReconnect off: the reconnect sends nothing of its own).
  for (const [networkMode, offlineEnd, offlineAttempts] of [
    ["always", "error idle", 3],
    ["offlineFirst", "pending paused", 1],
    ["online", "pending paused", 0],
  ] as const)
    it(`networkMode: "${networkMode}", offline, the host failing (retry 2): the same states and as many attempts as plain useQuery, then online`, async () => {
      const [a] = twoTabs();
      server.failing = true;
      onlineManager.setOnline(false);
      const logs = bothWays(a, function Pane({ which, log }) {
        const q = useQuery(
          sideBySide(server, a, `/${networkMode}`, { networkMode, retry: 2, retryDelay: 10, refetchOnReconnect: false })[which],
        );
        log(`${q.status} ${q.fetchStatus}`);
        return null;
      });
      const attempts = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
      await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual([offlineEnd, offlineEnd]));
      expect(attempts()).toEqual([offlineAttempts, offlineAttempts]);
      act(() => onlineManager.setOnline(true));
      await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(["error idle", "error idle"]));
      expect(logs[0]).toEqual(logs[1]);
      expect(attempts()).toEqual([3, 3]);
    });

  it("throwOnError: both tabs' error boundaries catch the one failed request", async () => {
    const [a, b] = twoTabs();
    server.failing = true;
    function Pane({ store, id }: { store: SharedFetchStoreWithExtras; id: string }) {
      const q = useQuery(sideBySide(server, store, "/throw", { throwOnError: true, retry: false })[0]);
      return <span data-testid={id}>{q.status}</span>;
    }
    const caught = (store: SharedFetchStoreWithExtras, id: string) => (
      <Boundary show={(error) => <span data-testid={id}>{`caught ${(error as Error).name}`}</span>}>
        <Pane store={store} id={id} />
      </Boundary>
    );
    vi.spyOn(console, "error").mockImplementation(() => {});
    render(
      <>
        {app(a, caught(a, "a"))}
        {app(b, caught(b, "b"))}
      </>,
    );
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["caught SharedFetchError", "caught SharedFetchError"]));
    expect(server.seen).toEqual(["/s/throw"]);
  });

  it("meta reaches the QueryCache's onSuccess and onError, as with plain useQuery", async () => {
    const [a] = twoTabs();
    const metas: unknown[] = [];
    const queryCache = new QueryCache({ onSuccess: (_d, q) => metas.push(q.meta), onError: (_e, q) => metas.push(q.meta) });
    function Pane({ which, path }: { which: 0 | 1; path: string }) {
      useQuery(sideBySide(server, a, path, { meta: { which, path }, retry: false })[which]);
      return null;
    }
    render(
      app(
        a,
        <>
          {([0, 1] as const).map((w) => (
            <Pane key={w} which={w} path="/meta" />
          ))}
        </>,
        new QueryClient({ queryCache }),
      ),
    );
    await waitFor(() => expect(metas).toHaveLength(2));
    server.failing = true;
    cleanup();
    render(
      app(
        a,
        <>
          {([0, 1] as const).map((w) => (
            <Pane key={w} which={w} path="/meta-error" />
          ))}
        </>,
        new QueryClient({ queryCache }),
      ),
    );
    await waitFor(() => expect(metas).toHaveLength(4));
    expect(metas).toEqual(
      expect.arrayContaining([
        { which: 0, path: "/meta" },
        { which: 0, path: "/meta-error" },
        { which: 1, path: "/meta" },
        { which: 1, path: "/meta-error" },
      ]),
    );
  });

  it("retryOnMount: false: a query in error mounted again shows the error and sends nothing, as with plain useQuery", async () => {
    const [a] = twoTabs();
    server.failing = true;
    const client = new QueryClient();
    const Pane = ({ which }: { which: 0 | 1 }) => {
      const q = useQuery(sideBySide(server, a, "/no-retry-on-mount", { retryOnMount: false, retry: false })[which]);
      return <span data-testid={`q${which}`}>{`${q.status} ${q.fetchStatus}`}</span>;
    };
    const panes = (
      <>
        <Pane which={0} />
        <Pane which={1} />
      </>
    );
    render(app(a, panes, client));
    await waitFor(() => expect([text("q0"), text("q1")]).toEqual(["error idle", "error idle"]));
    cleanup();
    render(app(a, panes, client));
    await pause(100);
    expect([text("q0"), text("q1")]).toEqual(["error idle", "error idle"]);
    expect(server.seen.sort()).toEqual(["/p/no-retry-on-mount", "/s/no-retry-on-mount"]);
  });
});

describe("refetchInterval as a function, refetchIntervalInBackground (fake clock, simulated host)", () => {
  it("refetchInterval: (query) => ms | false stops polling in both tabs once the data says so: one request per tick across them", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    const every = (q: Query<{ n: number }, SharedFetchError, { n: number }, readonly unknown[]>) =>
      (q.state.data?.n ?? 0) < 4 ? 1_000 : false;
    const shown: string[] = ["", ""];
    function Pane({ store, i }: { store: SharedFetchStoreWithExtras; i: number }) {
      const q = useQuery({ ...sharedQueryOptions<{ n: number }>(store, URL_A), refetchInterval: every });
      shown[i] = String(q.data?.n);
      return null;
    }
    render(
      <>
        {app(c.stores[0]!, <Pane store={c.stores[0]!} i={0} />)}
        {app(c.stores[1]!, <Pane store={c.stores[1]!} i={1} />)}
      </>,
    );
    await advance(20_000);
    expect(c.host.calls).toHaveLength(4);
    expect(shown).toEqual(["4", "4"]);
  });

  for (const inBackground of [false, true])
    it(`refetchIntervalInBackground: ${inBackground}: as many polls in an unfocused tab as plain useQuery`, async () => {
      useFakeClock();
      const c = cluster(1, { settleMs: 0 });
      c.host.auto = () => ({ status: 200, body: { n: c.host.calls.length } });
      let plain = 0;
      const poll = { refetchInterval: 1_000, refetchIntervalInBackground: inBackground };
      function Pane() {
        useQuery({ ...sharedQueryOptions(c.stores[0]!, URL_A), ...poll });
        useQuery({ queryKey: ["plain"], queryFn: () => ++plain, ...poll });
        return null;
      }
      render(app(c.stores[0]!, <Pane />));
      await advance(100);
      act(() => focusManager.setFocused(false));
      await advance(5_050);
      expect(c.host.calls).toHaveLength(plain);
      expect(plain).toBe(inBackground ? 6 : 1);
    });
});
