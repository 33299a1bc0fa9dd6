// @vitest-environment jsdom
/**
 * What a TanStack Query user does every day, in tabs of one SharedWorker replica (connectBrowser),
 * each tab its own QueryClient: the same outcome as per-tab replicas (test/react/*-side-by-side,
 * refetch-always): one request for every tab, and every tab shows its answer. Real ports, the
 * worker's real store; polling on the fake clock.
 */
import { focusManager, keepPreviousData, QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { useFakeClock } from "../harness/replicas.ts";
import { browser } from "./browser-sim.ts";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
  vi.useRealTimers();
});
const URL = "http://127.0.0.1:9/api/citizen";
const PREFIX = ["shared-fetch", "GET", URL];
type N = { n: number };
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const shown = (k: number) => Array.from({ length: k }, (_, i) => screen.getByTestId(`t${i}`).textContent);

/** K tabs of one browser whose host answers `{ n: call number }` after `delayMs`. */
function tabs(k: number, delayMs = 5) {
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs });
  const b = browser(host);
  return { host, stores: Array.from({ length: k }, () => b.tab() as SharedFetchStoreWithExtras) };
}

function Pane({ store, id, options }: { store: SharedFetchStoreWithExtras; id: string; options: object }) {
  const q = useQuery(sharedQueryOptions<N>(store, URL, { staleTime: 60_000, ...options }));
  return <span data-testid={id}>{q.data ? String(q.data.n) : q.status}</span>;
}

/** One pane per store, each with its own QueryClient (a tab's). */
function mount(stores: SharedFetchStoreWithExtras[], options: object = {}) {
  const clients = stores.map(() => new QueryClient());
  render(
    <>
      {stores.map((s, i) => (
        <span key={i}>{app(s, <Pane store={s} id={`t${i}`} options={options} />, clients[i])}</span>
      ))}
    </>,
  );
  return clients;
}

describe("one tab's client method: one request, and every worker tab shows its answer", () => {
  const exactKey = (s: SharedFetchStoreWithExtras) => sharedQueryOptions(s, URL, { staleTime: 60_000 }).queryKey;
  for (const [name, call] of [
    ["invalidateQueries (refetchType active)", (c: QueryClient) => c.invalidateQueries({ queryKey: PREFIX })],
    ["invalidateQueries (refetchType all)", (c: QueryClient) => c.invalidateQueries({ queryKey: PREFIX, refetchType: "all" })],
    [
      "invalidateQueries (exact)",
      (c: QueryClient, s: SharedFetchStoreWithExtras) => c.invalidateQueries({ queryKey: exactKey(s), exact: true }),
    ],
    ["invalidateQueries (predicate)", (c: QueryClient) => c.invalidateQueries({ predicate: (q) => q.queryKey[2] === URL })],
    ["refetchQueries", (c: QueryClient) => c.refetchQueries({ queryKey: PREFIX })],
  ] as const)
    it(name, async () => {
      const { host, stores } = tabs(3);
      const clients = mount(stores);
      await waitFor(() => expect(shown(3)).toEqual(["1", "1", "1"]));
      await act(() => call(clients[0]!, stores[0]!));
      await waitFor(() => expect(shown(3)).toEqual(["2", "2", "2"]));
      await pause(50);
      expect(host.calls).toHaveLength(2);
    });

  it("invalidateQueries (refetchType none): nothing sent, the query is stale", async () => {
    const { host, stores } = tabs(2);
    const clients = mount(stores);
    await waitFor(() => expect(shown(2)).toEqual(["1", "1"]));
    await act(() => clients[0]!.invalidateQueries({ queryKey: PREFIX, refetchType: "none" }));
    await pause(50);
    expect(host.calls).toHaveLength(1);
    expect(clients[0]!.getQueryCache().findAll({ queryKey: PREFIX })[0]!.isStale()).toBe(true);
  });

  it("setQueryData stays in the tab that set it (the other shows the server's), with no request", async () => {
    const { host, stores } = tabs(2);
    const clients = mount(stores);
    await waitFor(() => expect(shown(2)).toEqual(["1", "1"]));
    act(() => void clients[0]!.setQueryData(sharedQueryOptions(stores[0]!, URL).queryKey, { n: 99 }));
    await pause(30);
    expect(shown(2)).toEqual(["99", "1"]);
    expect(host.calls).toHaveLength(1);
  });
});

describe("mounts and focus across worker tabs", () => {
  it('two tabs mounting at once with refetchOnMount: "always" past another tab\'s fresh result: one request', async () => {
    const { host, stores } = tabs(3, 20);
    await stores[0]!.ensure({ url: URL });
    mount([stores[1]!, stores[2]!], { refetchOnMount: "always" });
    await waitFor(() => expect(shown(2)).toEqual(["2", "2"]));
    await pause(50);
    expect(host.calls).toHaveLength(2);
  });

  it("a focus with the data stale in two tabs: one request, both show it", async () => {
    const { host, stores } = tabs(2);
    mount(stores, { staleTime: 0 });
    await waitFor(() => expect(shown(2)).toEqual(["1", "1"]));
    act(() => focusManager.setFocused(false));
    act(() => focusManager.setFocused(true));
    await waitFor(() => expect(shown(2)).toEqual(["2", "2"]));
    await pause(50);
    expect(host.calls).toHaveLength(2);
  });

  it("select and placeholderData: keepPreviousData on a key change: the same states as a plain useQuery", async () => {
    const { host, stores } = tabs(1);
    const log: string[] = [];
    function Paged() {
      const [page, setPage] = useState(1);
      const q = useQuery({
        ...sharedQueryOptions<N>(stores[0]!, `${URL}?page=${page}`),
        placeholderData: keepPreviousData,
        select: (d) => d.n * 10,
      });
      const s = `${q.status} ${q.data} ${q.isPlaceholderData}`;
      if (log.at(-1) !== s) log.push(s);
      return <button data-testid="next" onClick={() => setPage(2)} />;
    }
    render(app(stores[0]!, <Paged />));
    await waitFor(() => expect(log.at(-1)).toBe("success 10 false"));
    act(() => screen.getByTestId("next").click());
    await waitFor(() => expect(log.at(-1)).toBe("success 20 false"));
    expect(log).toEqual(["pending undefined false", "success 10 false", "success 10 true", "success 20 false"]);
    expect(host.calls).toHaveLength(2);
  });
});

describe("refetchInterval in three worker tabs (fake clock)", () => {
  // Port messages are real tasks: each fake step lets them run before the next.
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 10)
      await act(async () => {
        await vi.advanceTimersByTimeAsync(10);
        for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
      });
  };

  it("one request per interval for all tabs, every tab showing each answer", async () => {
    useFakeClock();
    const { host, stores } = tabs(3, 0);
    mount(stores, { staleTime: 0, refetchInterval: 1_000 });
    await run(500);
    expect([host.calls.length, shown(3)]).toEqual([1, ["1", "1", "1"]]);
    await run(5_000);
    expect([host.calls.length, shown(3)]).toEqual([6, ["6", "6", "6"]]);
  });
});
