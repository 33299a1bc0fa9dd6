// @vitest-environment jsdom
/**
 * TanStack's persister beside shared queries (README, "Coming from TanStack Query"): tabs of one
 * browser that reload at once, each restoring the cache PersistQueryClientProvider persisted (an
 * async storage persister over the browser's one storage), beside plain useQuery over fetch,
 * against a real HTTP server on 127.0.0.1. While restoring no query fetches (TanStack holds
 * them); after the restore, stale persisted data is revalidated with one request for all the
 * tabs, where each plain tab sends its own; fresh data with none.
 */
import { useQuery } from "@tanstack/react-query";
import { act, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { persistedQueries, persistedTab, persistingBrowser, type MemoryStorage, type PersistExtra } from "../harness/persister.tsx";
import { pause, sideBySide, sideBySideServerForFile } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

const sent = (side: "/s" | "/p") => server.seen.filter((p) => p.startsWith(side)).length;

/** Both panes of a tab (shared and plain over one path), logging what each shows: "<status> <fetchStatus> <n>". */
function panes(store: SharedFetchStoreWithExtras, storage: MemoryStorage, path: string, options: object, extra?: PersistExtra) {
  const logs: string[][] = [[], []];
  const Pane = ({ which }: { which: 0 | 1 }) => {
    const q = useQuery(sideBySide(server, store, path, options)[which]);
    const shown = `${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`;
    if (logs[which]!.at(-1) !== shown) logs[which]!.push(shown);
    return null;
  };
  const { element, client } = persistedTab(
    store,
    storage,
    <>
      <Pane which={0} />
      <Pane which={1} />
    </>,
    extra,
  );
  const view = render(element);
  return { logs, client, unmount: view.unmount, last: () => logs.map((l) => l.at(-1)) };
}

/** A first visit: one tab fetches both queries, its persister saves them, the tab closes. */
async function firstVisit(path: string, options: object) {
  const b = persistingBrowser();
  const first = b.tab();
  const one = panes(first, b.storage, path, options);
  await waitFor(() => expect(one.last()).toEqual(["success idle 1", "success idle 1"]));
  await waitFor(() => expect(persistedQueries(b.storage).filter((q) => q.state.status === "success")).toHaveLength(2));
  one.unmount();
  first.destroy();
  b.c.crash(first); // its doc leaves the tabs' network: only IndexedDB (\`from\`) holds it now
  return { ...b, first };
}

type Visited = Awaited<ReturnType<typeof firstVisit>>;

/** Three tabs reloading while the storage is held (still restoring): none has sent anything beyond the first visit's two. */
async function restoring(b: Visited, tab: () => SharedFetchStoreWithExtras, path: string, options: object) {
  b.storage.gate();
  const tabs = [0, 1, 2].map(() => panes(tab(), b.storage, path, options));
  await pause(100);
  expect(server.seen).toHaveLength(2);
  return tabs;
}

/** Once restored, the stale shared query is revalidated by one request across the tabs; the plain one by one per tab. */
async function revalidatedOnce(b: Visited, tabs: ReturnType<typeof panes>[]) {
  act(() => b.storage.release());
  await waitFor(() => expect(tabs.map((t) => t.last()[1]).sort()).toEqual(["success idle 2", "success idle 3", "success idle 4"]));
  await pause(300);
  // The first visit's request, and the revalidation's.
  expect(sent("/s")).toBe(2);
  expect(sent("/p")).toBe(4);
  for (const t of tabs) expect(t.last()[0]).toBe("success idle 2");
}

/**
 * The first visit's data goes stale on the clock alone, moved on rather than waited for: with a
 * staleTime short enough to wait out, the revalidation's own result went stale too before every
 * tab had restored on a loaded machine, and a late tab sent a third request.
 */
const STALE_MS = 60_000;
const staleNow = () => {
  const now = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => now() + STALE_MS + 100);
};
afterEach(() => void vi.restoreAllMocks());

describe("K tabs reloading at once, each restoring its persisted cache", () => {
  it("stale persisted data: nothing is sent while restoring; then one request across the tabs (plain: one per tab)", async () => {
    const options = { staleTime: STALE_MS };
    const b = await firstVisit("/reload-stale", options);
    staleNow(); // the persisted data and the record are now stale
    const tabs = await restoring(b, () => b.tab(b.first), "/reload-stale", options);
    // While restoring, the shared query already shows the doc's result; the plain one is pending.
    for (const t of tabs) expect(t.last()).toEqual(["success idle 1", "pending idle -"]);
    await revalidatedOnce(b, tabs);
  });

  it("stale persisted data and no record in the doc (IndexedDB cleared): one request across the tabs", async () => {
    const options = { staleTime: STALE_MS };
    const b = await firstVisit("/reload-stale-no-doc", options);
    staleNow();
    await revalidatedOnce(b, await restoring(b, () => b.tab(), "/reload-stale-no-doc", options));
  });

  it("fresh persisted data: no request at all, with or without the record in the doc", async () => {
    const options = { staleTime: 60_000 };
    const b = await firstVisit("/reload-fresh", options);
    b.storage.gate();
    const tabs = [0, 1, 2].map((i) => panes(i ? b.tab(b.first) : b.tab(), b.storage, "/reload-fresh", options));
    await pause(100);
    act(() => b.storage.release());
    await pause(300);
    expect(server.seen).toHaveLength(2);
    for (const t of tabs) expect(t.last()).toEqual(["success idle 1", "success idle 1"]);
  });
});
