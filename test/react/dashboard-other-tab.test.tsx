// @vitest-environment jsdom
/**
 * A dashboard (useQueries over N shared queries) shown in two tabs: the work each result another
 * replica records costs the tab that shows it must not be N queries' worth. Each render called
 * sharedQueryOptions N times, and new functions in each call's options made TanStack update every
 * observer's options and tell the cache (so the bridge) of each. And the results of one update
 * (a tab's sync on boot, a reconnect), pushed one microtask and one TanStack batch each, must still
 * make one render of the whole dashboard, not one per result (TanStack's notifications of one task
 * reach React together).
 */
import { QueryClient, useQueries } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";

afterEach(cleanup);

const N = 50;
const url = (i: number) => `https://api.example.test/dashboard/${i}`;

/** A store on its own doc whose host answers each URL with its round (`n`). */
function tab(round: { n: number }) {
  const doc = new Y.Doc();
  const fetch: typeof globalThis.fetch = async (input) => new Response(JSON.stringify({ url: String(input), n: round.n }));
  const store = createSharedFetchStore({ doc, fetch, settleMs: 0, locks: null }) as SharedFetchStoreWithExtras;
  return { doc, store };
}

function Dashboard({ store, onRender }: { store: SharedFetchStoreWithExtras; onRender: () => void }) {
  onRender();
  useQueries({ queries: Array.from({ length: N }, (_, i) => sharedQueryOptions(store, url(i))) });
  return null;
}

describe("a dashboard shown in two tabs", () => {
  it("sharedQueryOptions of a URL alone is made once per store: a re-render updates no observer's options", async () => {
    const { store } = tab({ n: 1 });

    const client = new QueryClient();
    const page = () => app(store, <Dashboard store={store} onRender={() => {}} />, client);
    const { rerender } = render(page());
    await waitFor(() =>
      expect(
        client
          .getQueryCache()
          .getAll()
          .every((q) => q.state.status === "success"),
      ).toBe(true),
    );
    let updated = 0;
    const off = client.getQueryCache().subscribe((event) => void (event.type === "observerOptionsUpdated" && updated++));
    act(() => rerender(page()));
    off();
    expect(updated).toBe(0);
    expect(sharedQueryOptions(store, url(1))).toBe(sharedQueryOptions(store, url(1)));
    expect(sharedQueryOptions(store, url(1))).not.toBe(sharedQueryOptions(store, url(2)));
    expect(sharedQueryOptions(store, url(1))).not.toBe(sharedQueryOptions(tab({ n: 1 }).store, url(1)));
    // Options of the caller's own are the caller's: made anew each call, as before.
    expect(sharedQueryOptions(store, url(1), { staleTime: 1 })).not.toBe(sharedQueryOptions(store, url(1), { staleTime: 1 }));
  });

  it("results another tab records in one update reach the dashboard in one render, not one per result", async () => {
    const round = { n: 1 };
    const a = tab(round);
    const b = tab(round);
    await Promise.all(Array.from({ length: N }, (_, i) => a.store.ensure({ url: url(i) })));
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc));
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity } } });
    let renders = 0;
    render(app(b.store, <Dashboard store={b.store} onRender={() => renders++} />, client));
    const shown = (n: number) =>
      client
        .getQueryCache()
        .getAll()
        .filter((q) => (q.state.data as { n?: number } | undefined)?.n === n).length;
    await waitFor(() => expect(shown(1)).toBe(N));

    // Tab A refetches the whole dashboard; its results reach tab B in one update (a sync).
    round.n = 2;
    const before = Y.encodeStateVector(b.doc);
    await Promise.all(Array.from({ length: N }, (_, i) => a.store.refetch({ url: url(i) })));
    renders = 0;
    await act(async () => Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc, before)));
    await waitFor(() => expect(shown(2)).toBe(N));
    expect(renders).toBeLessThanOrEqual(2);
  });
});
