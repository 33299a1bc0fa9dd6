// @vitest-environment jsdom
/**
 * Stale-while-revalidate across reloads (README, "Coming from TanStack Query"), with the store
 * created at once as in Usage: the pane mounts before its store has read what was persisted, so
 * the result from the past visit arrives while the query function already runs. The pane shows it
 * meanwhile, and that query function revalidates it with one request instead of passing it off
 * as fresh (it is older than the staleTime).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import "fake-indexeddb/auto";
import { connectTabs, createSharedFetchStore, SharedFetchProvider, useSharedFetch } from "../../src/index.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { slowIndexedDB } from "../sync/boot-fakes.ts";

const URL_R = "https://api.example.test/return-visit";

function Pane() {
  const { data, isFetching } = useSharedFetch<{ visit: number }>(URL_R, { staleTime: 1000 });
  return <span data-testid="pane">{`${data ? data.visit : "none"}${isFetching ? " fetching" : ""}`}</span>;
}

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
}

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

it("a persisted result older than staleTime shows while one request revalidates it", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(1_000_000);
  const past = new Y.Doc();
  const first = createSharedFetchStore({ doc: past, fetch: (async () => json({ visit: 1 })) as typeof fetch, locks: null });
  await first.ensure({ url: URL_R });
  first.destroy();
  vi.setSystemTime(1_005_000);

  const doc = new Y.Doc();
  let synced!: () => void;
  registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
  const calls: string[] = [];
  let answer!: (r: Response) => void;
  const fetch = ((input: RequestInfo | URL) => {
    calls.push(String(input));
    return new Promise<Response>((resolve) => (answer = resolve));
  }) as typeof globalThis.fetch;
  const store = createSharedFetchStore({ doc, fetch, locks: null });
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Pane />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("none fetching"));

  // IndexedDB's content arrives before the store is in sync: shown, not taken as the answer.
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(past));
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("1 fetching"));
  expect(calls).toHaveLength(0);

  synced();
  await waitFor(() => expect(calls).toHaveLength(1));
  answer(json({ visit: 2 }));
  await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("2"));
  expect(calls).toHaveLength(1);
  store.destroy();
});

it("a result within staleTime shows at the first render of a return visit, from connectTabs' copy, before IndexedDB opens and with no request", async () => {
  const name = `return-${Math.random().toString(36).slice(2)}`;
  const past = new Y.Doc();
  const pastTabs = connectTabs(past, { name });
  const first = createSharedFetchStore({ doc: past, fetch: (async () => json({ visit: 1 })) as typeof fetch, locks: null });
  await first.ensure({ url: URL_R });
  first.destroy();
  pastTabs.destroy(); // the tab closes: its copy is written

  const slow = slowIndexedDB();
  vi.stubGlobal("indexedDB", slow.factory); // this visit's database opens only when released
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  const calls: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    calls.push(String(input));
    return json({ visit: 2 });
  }) as typeof globalThis.fetch;
  const store = createSharedFetchStore({ doc, fetch, locks: null });
  const shown: string[] = [];
  function Recorded() {
    const { data } = useSharedFetch<{ visit: number }>(URL_R, { staleTime: 60_000 });
    shown.push(data ? String(data.visit) : "none");
    return null;
  }
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Recorded />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  expect(shown[0]).toBe("1");
  // Once the database is read and the store in sync, the recorded result still stands: no request.
  slow.release();
  await tabs.whenSynced;
  await new Promise((resolve) => setTimeout(resolve, 400)); // past the settle window (100 ms) a request would have waited
  expect(shown.every((s) => s === "1")).toBe(true);
  expect(calls).toHaveLength(0);
  store.destroy();
  tabs.destroy();
});
