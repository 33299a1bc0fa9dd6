// @vitest-environment jsdom
/**
 * A SharedWorker tab's shared query with no observer (its pane unmounted, still cached) hears of
 * its key no more: reading it (getQueryData) asks the worker what it holds, a read that subscribes
 * to nothing and sends no request, and the answer goes into the query: the next read is the newest
 * result another tab recorded. Reads in a row (getQueryData in every render of another pane) send
 * one ask while it is unanswered, and a read after its answer asks again. Real ports, the worker's
 * real store and Yjs docs; the simulated host.
 */
import { focusManager, onlineManager, QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const URL = "http://127.0.0.1:9/api/unobserved-read";
type N = { n: number };

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<N>(store, URL, { staleTime: 60_000 }));
  return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
}

it("tab B's pane unmounted, tab A refetches: B's read asks its worker, and the next read is A's result, with no request of B's", async () => {
  const b = browser(new Host());
  b.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 5 });
  const tabA = b.tab() as SharedFetchStoreWithExtras;
  const tabB = b.tab() as SharedFetchStoreWithExtras;
  const client = new QueryClient();
  const { rerender } = render(app(tabB, <Pane store={tabB} />, client));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("1"));
  rerender(app(tabB, <></>, client));
  const key = sharedQueryOptions(tabB, URL).queryKey;

  await tabA.refetch({ url: URL });
  expect(b.host.calls).toHaveLength(2);
  await waitFor(() => expect(client.getQueryData(key)).toEqual({ n: 2 }));
  expect(b.host.calls).toHaveLength(2);
});

/** Tabs A and B of one browser; the looks B's tab sends its worker land in `looks`. */
function tabsWithLooks() {
  const b = browser(new Host());
  b.host.auto = (call) => ({ status: 200, body: { n: call.n }, delayMs: 5 });
  const looks: unknown[] = [];
  const tabA = b.tab() as SharedFetchStoreWithExtras;
  const tabB = b.tab({
    worker: (name) => {
      const { port } = b.start(name);
      const post = port.postMessage.bind(port);
      port.postMessage = (m: unknown) => ((m as { t: string }).t === "look" && looks.push(m), post(m as never));
      return { port };
    },
  }) as SharedFetchStoreWithExtras;
  return { b, looks, tabA, tabB };
}

const pause = () => act(() => new Promise<void>((r) => setTimeout(r, 30)));

it("ten reads in a row of B's unobserved query send one ask to the worker, which stays open: a newer result recorded later reaches the query with no ask of its own", async () => {
  const { b, looks, tabA, tabB } = tabsWithLooks();
  const client = new QueryClient();
  const { rerender } = render(app(tabB, <Pane store={tabB} />, client));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("1"));
  rerender(app(tabB, <></>, client));
  const key = sharedQueryOptions(tabB, URL).queryKey;
  await pause();
  looks.length = 0;

  await tabA.refetch({ url: URL });
  for (let i = 0; i < 10; i++) client.getQueryData(key);
  expect(looks).toHaveLength(1);
  await pause();
  expect(client.getQueryData(key)).toEqual({ n: 2 });

  await tabA.refetch({ url: URL });
  for (let i = 0; i < 10; i++) client.getQueryData(key);
  expect(looks).toHaveLength(1);
  await pause();
  expect(client.getQueryData(key)).toEqual({ n: 3 });
  expect(b.host.calls).toHaveLength(3);
});

it("B's query never observed (built, as a plugin would): its cache events ask the worker nothing; its first read asks once", async () => {
  const { b, looks, tabA, tabB } = tabsWithLooks();
  const client = new QueryClient();
  render(app(tabB, <></>, client));
  await tabA.ensure({ url: URL });
  const options = sharedQueryOptions<N>(tabB, URL, { staleTime: 60_000 });
  // build's parameter type takes no data-tagged key (TanStack's typing), which the options carry.
  const query = client.getQueryCache().build(client, options as never);
  query.invalidate();
  await pause();
  expect(looks).toHaveLength(0);

  client.getQueryData(options.queryKey);
  expect(looks).toHaveLength(1);
  await pause();
  expect(client.getQueryData(options.queryKey)).toEqual({ n: 1 });
  expect(b.host.calls).toHaveLength(1);
});

it("B's unobserved query read by filter: ten getQueriesData and findAll calls in a row send one ask, and the next read is A's result", async () => {
  const { b, looks, tabA, tabB } = tabsWithLooks();
  const client = new QueryClient();
  render(app(tabB, <></>, client));
  await tabA.ensure({ url: URL });
  const options = sharedQueryOptions<N>(tabB, URL, { staleTime: 60_000 });
  client.getQueryCache().build(client, options as never);
  await pause();

  for (let i = 0; i < 5; i++) client.getQueriesData({ queryKey: options.queryKey.slice(0, 3) });
  for (let i = 0; i < 5; i++) client.getQueryCache().findAll({ queryKey: options.queryKey });
  expect(looks).toHaveLength(1);
  await pause();
  expect(client.getQueriesData({ queryKey: options.queryKey })).toEqual([[options.queryKey, { n: 1 }]]);
  expect(b.host.calls).toHaveLength(1);
});

it("B's unobserved queries are no part of TanStack's own walks of the cache: a window focus, a reconnect and clear() ask the worker nothing", async () => {
  const { looks, tabA, tabB } = tabsWithLooks();
  const client = new QueryClient();
  render(app(tabB, <></>, client));
  for (let i = 0; i < 3; i++) {
    await tabA.ensure({ url: `${URL}/${i}` });
    client.getQueryCache().build(client, sharedQueryOptions<N>(tabB, `${URL}/${i}`, { staleTime: 60_000 }) as never);
  }
  await pause();
  focusManager.setFocused(false);
  focusManager.setFocused(true);
  onlineManager.setOnline(false);
  onlineManager.setOnline(true);
  await pause();
  client.clear();
  await pause();
  expect(looks).toHaveLength(0);
  focusManager.setFocused(undefined);
});
