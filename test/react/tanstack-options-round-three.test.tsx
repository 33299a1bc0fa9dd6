// @vitest-environment jsdom
/**
 * A third round of what a TanStack Query user sets every day, on sharedQueryOptions beside a plain
 * query function over fetch, against a real HTTP server on 127.0.0.1 that counts what it is sent:
 * `enabled` turned off while a refetch runs, `initialData` dated by `initialDataUpdatedAt`,
 * `invalidateQueries` with `refetchType` and `predicate` (a disabled query and an unmounted one),
 * `networkMode` with the app's `onlineManager` offline and the host reachable, and
 * `getQueryState` through success, invalidation, error and success again. Each step waits for
 * both sides' state (no clock); each renders the same states and sends as many requests.
 */
import { focusManager, onlineManager, QueryClient, useQuery, type QueryKey } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, expect, it } from "vitest";
import { app } from "../harness/render-app.tsx";
import { sideBySide, sideBySideServerForFile, twoTabs, type Options } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();
afterEach(() => {
  onlineManager.setOnline(true);
  focusManager.setFocused(undefined);
});

type Shown = { status: string; fetchStatus: string; data?: { n: number } | undefined; isStale: boolean; isPaused: boolean };
const line = (q: Shown) => `${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}${q.isStale ? " stale" : ""}${q.isPaused ? " paused" : ""}`;

/**
 * Both sides of `path` in one tab, each a pane whose `enabled` a "toggle" button flips and whose
 * `refetch` a "refetch" button calls; returns each side's distinct states (`mark` adds a step's name).
 */
function panes(path: string, options: object, client = new QueryClient()) {
  const [a] = twoTabs();
  const sides = sideBySide(server, a, path, options);
  const logs: string[][] = [[], []];
  function Pane({ which }: { which: 0 | 1 }) {
    const [enabled, setEnabled] = useState(true);
    const q = useQuery({ ...sides[which], enabled } as Options);
    if (logs[which]!.at(-1) !== line(q)) logs[which]!.push(line(q));
    return (
      <>
        <button onClick={() => void q.refetch()}>{`refetch ${which}`}</button>
        <button onClick={() => setEnabled((on) => !on)}>{`toggle ${which}`}</button>
      </>
    );
  }
  const view = render(app(a, <>{[<Pane key={0} which={0} />, <Pane key={1} which={1} />]}</>, client));
  const click = (label: string) => act(() => [0, 1].forEach((w) => fireEvent.click(screen.getByText(`${label} ${w}`))));
  const bothAt = (state: string) => waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual([state, state]));
  const mark = (step: string) => logs.forEach((l) => l.push(step));
  const sent = () => ["/s", "/p"].map((side) => server.seen.filter((p) => p.startsWith(side)).length);
  return { logs, click, bothAt, mark, sent, client, keys: sides.map((s) => s.queryKey) as QueryKey[], view };
}

it("enabled turned off while a refetch is in flight: the answer still lands, and turned on, a stale query refetches", async () => {
  const p = panes("/enabled", {});
  await p.bothAt("success idle 1 stale");
  server.held = [];
  await p.click("refetch");
  await p.bothAt("success fetching 1 stale");
  p.mark("off");
  await p.click("toggle");
  await waitFor(() => expect(server.held).toHaveLength(2));
  await act(() => server.held!.splice(0).forEach((answer) => answer()));
  server.held = null;
  await p.bothAt("success idle 2");
  p.mark("on");
  await p.click("toggle");
  await p.bothAt("success idle 3 stale");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([3, 3]);
});

for (const [age, staleTime, first] of [
  ["older than the staleTime: one request on mount", 5_000, "success fetching 0 stale"],
  ["within the staleTime: none until invalidated", 60_000, "success idle 0"],
] as const)
  it(`initialData dated by initialDataUpdatedAt ${age}`, async () => {
    const client = new QueryClient();
    const initialDataUpdatedAt = Date.now() - 10_000;
    const p = panes("/initial", { initialData: { path: "", n: 0 }, initialDataUpdatedAt, staleTime }, client);
    expect(p.logs).toEqual([[first], [first]]);
    expect(p.keys.map((key) => client.getQueryState(key)?.dataUpdatedAt)).toEqual([initialDataUpdatedAt, initialDataUpdatedAt]);
    if (staleTime === 60_000) await act(() => client.invalidateQueries());
    await p.bothAt("success idle 1");
    expect(p.logs[0]).toEqual(p.logs[1]);
    expect(p.sent()).toEqual([1, 1]);
  });

it("invalidateQueries({ refetchType: 'none' }) with staleTime Infinity: stale at once, refetched at the next focus and mount", async () => {
  const client = new QueryClient();
  const p = panes("/invalidate-none", { staleTime: Infinity }, client);
  await p.bothAt("success idle 1");
  await act(() => client.invalidateQueries({ refetchType: "none" }));
  await p.bothAt("success idle 1 stale");
  expect(p.sent()).toEqual([1, 1]);
  p.mark("focus");
  act(() => focusManager.setFocused(false));
  act(() => focusManager.setFocused(true));
  await p.bothAt("success idle 2");
  await act(() => client.invalidateQueries({ refetchType: "none" }));
  p.view.unmount();
  p.mark("mount");
  const again = panes("/invalidate-none", { staleTime: Infinity }, client);
  await again.bothAt("success idle 3");
  expect([...p.logs[0]!, ...again.logs[0]!]).toEqual([...p.logs[1]!, ...again.logs[1]!]);
  expect(p.sent()).toEqual([3, 3]);
});

it("invalidateQueries and refetchQueries({ type: 'inactive' }) leave a disabled query alone; it refetches once enabled", async () => {
  const client = new QueryClient();
  const p = panes("/disabled", {}, client);
  await p.bothAt("success idle 1 stale");
  await p.click("toggle");
  await p.bothAt("success idle 1");
  await act(() => client.invalidateQueries());
  await act(() => client.refetchQueries({ type: "inactive" }));
  expect(p.sent()).toEqual([1, 1]);
  p.mark("on");
  await p.click("toggle");
  await p.bothAt("success idle 2 stale");
  expect(p.logs[0]).toEqual(p.logs[1]);
  expect(p.sent()).toEqual([2, 2]);
});

it("invalidateQueries({ predicate, refetchType: 'inactive' }) refetches an unmounted query, both ways alike", async () => {
  const client = new QueryClient();
  const p = panes("/inactive", {}, client);
  await p.bothAt("success idle 1 stale");
  p.view.unmount();
  const chosen = new Set(p.keys.map((key) => JSON.stringify(key)));
  await act(() => client.invalidateQueries({ predicate: (q) => chosen.has(JSON.stringify(q.queryKey)), refetchType: "inactive" }));
  await waitFor(() => expect(p.keys.map((key) => (client.getQueryData(key) as { n: number } | undefined)?.n)).toEqual([2, 2]));
  const state = (key: QueryKey) => {
    const s = client.getQueryState(key)!;
    return [s.status, s.fetchStatus, s.dataUpdateCount, s.isInvalidated];
  };
  expect(state(p.keys[0]!)).toEqual(state(p.keys[1]!));
  expect(p.sent()).toEqual([2, 2]);
});

// Back online, the paused fetch resumes ("online") or refetchOnReconnect refetches the stale query
// ("offlineFirst"); "always" never waited for the network, and TanStack's reconnect leaves it be.
for (const [networkMode, offline, online] of [
  ["online", "pending paused - stale paused", "success idle 1 stale"],
  ["offlineFirst", "success idle 1 stale", "success idle 3 stale"],
  ["always", "success idle 1 stale", undefined],
] as const)
  it(`networkMode "${networkMode}", onlineManager offline, the host reachable: ${offline}; a refetch, then online`, async () => {
    onlineManager.setOnline(false);
    const p = panes(`/offline-${networkMode}`, { networkMode });
    await p.bothAt(offline);
    await p.click("refetch");
    if (networkMode !== "online") await p.bothAt("success idle 2 stale");
    if (online) {
      p.mark("online");
      act(() => onlineManager.setOnline(true));
      await p.bothAt(online);
    }
    expect(p.logs[0]).toEqual(p.logs[1]);
    expect(p.sent()).toEqual({ online: [1, 1], offlineFirst: [3, 3], always: [2, 2] }[networkMode]);
  });

it("getQueryState through success, an invalidation, an error and a success: the same counts and flags", async () => {
  const client = new QueryClient();
  const p = panes("/state", { retry: false }, client);
  const states = () =>
    p.keys.map((key) => {
      const s = client.getQueryState(key)!;
      const at = (t: number) => (t > 0 ? "set" : "0");
      return `${s.status} ${s.fetchStatus} data ${s.dataUpdateCount} errors ${s.errorUpdateCount} failures ${s.fetchFailureCount} invalidated ${s.isInvalidated} errorAt ${at(s.errorUpdatedAt)} reason ${s.fetchFailureReason ? "yes" : "no"}`;
    });
  const seen: string[][] = [];
  await p.bothAt("success idle 1 stale");
  seen.push(states());
  await act(() => client.invalidateQueries({ refetchType: "none" }));
  seen.push(states());
  server.failing = true;
  await act(() => client.refetchQueries());
  await waitFor(() => expect(states().map((s) => s.split(" ")[0])).toEqual(["error", "error"]));
  seen.push(states());
  server.failing = false;
  await act(() => client.refetchQueries());
  await p.bothAt("success idle 3 stale");
  seen.push(states());
  for (const [shared, plain] of seen) expect(shared).toBe(plain);
  expect(seen.map(([shared]) => shared!.split(" ").slice(0, 2).join(" "))).toEqual([
    "success idle",
    "success idle",
    "error idle",
    "success idle",
  ]);
});
