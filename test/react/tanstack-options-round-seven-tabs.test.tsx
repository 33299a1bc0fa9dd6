// @vitest-environment jsdom
/**
 * The seventh round's moments when every tab acts at once, each tab with its own QueryClient, on
 * sharedQueryOptions beside a plain query function over fetch, against a real HTTP server on
 * 127.0.0.1 that counts what it is sent: the browser back online (every tab's stale query
 * refetches on reconnect), a first load made offline (every tab paused, then sent once online),
 * a change pushed to every tab that each one answers with invalidateQueries, and the client's
 * prefetchQuery, ensureQueryData and fetchQuery called in every tab. Each tab renders the same
 * states both ways; the plain side sends a request per tab, the shared side one.
 */
import { onlineManager, QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { app } from "../harness/render-app.tsx";
import { pause, sideBySide, sideBySideServerForFile, twoTabs, type Body, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => onlineManager.setOnline(true));

/**
 * A pane in each of two tabs over `path`, the shared side's query (`which` 0) or the plain one's
 * (1): each tab's distinct states (status, fetch status, whether data shows) and the counts shown.
 */
function everyTab(which: 0 | 1, path: string) {
  const tabs = twoTabs();
  const clients = [new QueryClient(), new QueryClient()] as const;
  const states: string[][] = [[], []];
  const counts: (number | undefined)[] = [undefined, undefined];
  tabs.forEach((tab, i) => {
    function Pane() {
      const q = useQuery(sideBySide(server, tab, path)[which]);
      const state = `${q.status} ${q.fetchStatus} ${q.data ? "data" : "-"}`;
      if (states[i]!.at(-1) !== state) states[i]!.push(state);
      counts[i] = q.data?.n;
      return null;
    }
    render(app(tab, <Pane />, clients[i]));
  });
  const bothAt = (state: string) => waitFor(() => expect(states.map((l) => l.at(-1))).toEqual([state, state]));
  const sent = () => server.seen.filter((p) => p.startsWith(which === 0 ? "/s" : "/p")).length;
  return { clients, states, counts, bothAt, sent };
}

/** What each side's two tabs show and send after `steps` (`before` runs before they mount): [shared, plain]. */
async function bothSides(path: string, steps: (t: ReturnType<typeof everyTab>) => Promise<void>, before = () => {}) {
  const seen = [];
  for (const which of [0, 1] as const) {
    before();
    const t = everyTab(which, `${path}-${which}`);
    await steps(t);
    await pause(50); // a request would have left by now
    seen.push({ states: t.states.map((l) => [...l]), counts: [...t.counts], sent: t.sent() });
    // Unmounted, this side's tabs do not answer the other side's reconnect.
    cleanup();
  }
  return seen;
}

it("the browser back online: every tab's stale query refetches; the plain side sends one request per tab, the shared side one", async () => {
  const [shared, plain] = await bothSides("/back-online", async (t) => {
    await t.bothAt("success idle data");
    server.held = []; // the fetching state shows before the answer, whatever the load
    act(() => (onlineManager.setOnline(false), onlineManager.setOnline(true)));
    await t.bothAt("success fetching data");
    server.release();
    await t.bothAt("success idle data");
  });
  expect(shared!.states).toEqual(plain!.states);
  expect(shared!.states[0]).toEqual(["pending fetching -", "success idle data", "success fetching data", "success idle data"]);
  expect(plain!.sent).toBe(4);
  // Two tabs' first loads joined in one request, and so did their refetches.
  expect(shared!.sent).toBe(2);
  expect(shared!.counts).toEqual([2, 2]);
});

it("a first load made offline: every tab shows it paused, sends nothing, then once online the shared side sends one request for both tabs", async () => {
  const [shared, plain] = await bothSides(
    "/offline-first-load",
    async (t) => {
      await t.bothAt("pending paused -");
      await pause(50); // a request would have left by now
      expect(t.sent()).toBe(0);
      server.held = []; // the fetching state shows before the answer, whatever the load
      act(() => onlineManager.setOnline(true));
      await t.bothAt("pending fetching -");
      server.release();
      await t.bothAt("success idle data");
    },
    () => onlineManager.setOnline(false),
  );
  expect(shared!.states).toEqual(plain!.states);
  expect(shared!.states[0]).toEqual(["pending paused -", "pending fetching -", "success idle data"]);
  expect(plain!.sent).toBe(2);
  expect(shared!.sent).toBe(1);
  expect(shared!.counts).toEqual([1, 1]);
});

it("a change pushed to every tab, each invalidating at once while the host is slow: one request on the shared side, whose answer both tabs show", async () => {
  const [shared, plain] = await bothSides("/pushed-change", async (t) => {
    await t.bothAt("success idle data");
    server.held = [];
    let settled: Promise<unknown> = Promise.resolve();
    act(() => void (settled = Promise.all(t.clients.map((c) => c.invalidateQueries()))));
    await t.bothAt("success fetching data");
    await pause(50); // a request would have left by now
    server.held.splice(0).forEach((answer) => answer());
    server.held = null;
    await act(() => settled.then(() => undefined));
    await t.bothAt("success idle data");
  });
  expect(shared!.states).toEqual(plain!.states);
  expect(plain!.sent).toBe(4);
  expect(shared!.sent).toBe(2);
  expect(shared!.counts).toEqual([2, 2]);
});

it("prefetchQuery, ensureQueryData({ revalidateIfStale: true }) and fetchQuery in every tab at once: a request per tab on the plain side, one on the shared side, whose answer each tab's cache holds", async () => {
  const tabs = twoTabs();
  const clients = [new QueryClient(), new QueryClient()] as const;
  /** Each tab's options, [shared, plain]. */
  const options = tabs.map((tab) => sideBySide(server, tab, "/every-tab-methods"));
  /** `call` in every tab both ways at once, the host slow: the requests it sends (3: one shared, one plain per tab). */
  const inEveryTab = async (call: (client: QueryClient, options: Options) => Promise<unknown>) => {
    server.held = [];
    const calls = clients.flatMap((client, i) => options[i]!.map((o) => call(client, o)));
    await waitFor(() => expect(server.held).toHaveLength(3));
    await pause(50); // a request would have left by now
    expect(server.held).toHaveLength(3);
    server.held.splice(0).forEach((answer) => answer());
    server.held = null;
    await act(() => Promise.all(calls).then(() => undefined));
  };
  /** What the tabs' caches hold: [[tab a's, tab b's] shared, [both, in order] plain] (which tab's plain request came first may vary). */
  const cached = () =>
    ([0, 1] as const).map((which) => {
      const held = clients.map((client, i) => client.getQueryData<Body>(options[i]![which].queryKey)?.n);
      return which === 0 ? held : held.sort();
    });
  await inEveryTab((client, o) => client.prefetchQuery(o));
  expect(cached()).toEqual([
    [1, 1],
    [1, 2],
  ]);
  await inEveryTab((client, o) => client.ensureQueryData({ ...o, revalidateIfStale: true }));
  await waitFor(() =>
    expect(cached()).toEqual([
      [2, 2],
      [3, 4],
    ]),
  );
  await inEveryTab((client, o) => client.fetchQuery(o));
  expect(cached()).toEqual([
    [3, 3],
    [5, 6],
  ]);
  expect(server.seen.filter((p) => p.startsWith("/s"))).toHaveLength(3);
});
