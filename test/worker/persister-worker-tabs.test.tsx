// @vitest-environment jsdom
/**
 * TanStack's persister (PersistQueryClientProvider, an async storage persister) around tabs of one
 * SharedWorker replica (connectBrowser), beside the per-tab results of test/react/persister-*.
 * A worker tab has no doc of its own and hears of keys through the worker. Requests are counted at
 * a real HTTP server on 127.0.0.1, which the worker's store fetches from.
 */
import { act, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Host } from "../../sim/host.ts";
import type { SharedFetchStoreWithExtras } from "../../src/index.ts";
import { loggedPane, memoryStorage, persistedQueries, type MemoryStorage } from "../harness/persister.tsx";
import { pause, sideBySideServerForFile } from "../harness/side-by-side.tsx";
import { browser } from "./browser-sim.ts";

const server = sideBySideServerForFile();
const url = (path: string) => `${server.base}/s${path}`;

/** A browser whose worker fetches from the real server; `retireAfterMs: 0` forgets the doc once no tab is left. */
function workerBrowser(retireAfterMs?: number) {
  const b = browser({ fetch: (input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init) } as unknown as Host, {
    ...(retireAfterMs === undefined ? {} : { retireAfterMs }),
  });
  return { b, storage: memoryStorage(), tab: () => b.tab() as unknown as SharedFetchStoreWithExtras };
}

const pane = (store: SharedFetchStoreWithExtras, storage: MemoryStorage, path: string, options: object) =>
  loggedPane(store, storage, url(path), options);

async function firstVisit(w: ReturnType<typeof workerBrowser>, path: string, options: object) {
  const first = w.tab();
  const one = pane(first, w.storage, path, options);
  await waitFor(() => expect(one.last()).toBe("success idle 1"));
  await waitFor(() => expect(persistedQueries(w.storage)).toHaveLength(1));
  one.unmount();
  first.destroy();
  return first;
}

describe("three worker tabs reloading at once, each restoring its persisted cache", () => {
  it.each([
    ["the worker holds the result", undefined],
    ["the worker retired (persister alone)", 0],
  ] as const)("stale persisted data, %s: nothing sent while restoring, then one request across the tabs", async (_, retire) => {
    const w = workerBrowser(retire);
    const path = `/worker-reload-stale-${retire ?? "kept"}`;
    const options = { staleTime: 400 };
    await firstVisit(w, path, options);
    if (retire === 0) await waitFor(() => expect(w.b.retired).toHaveLength(1));
    await pause(500);
    w.storage.gate();
    const tabs = [0, 1, 2].map(() => pane(w.tab(), w.storage, path, options));
    await pause(100);
    expect(server.seen).toHaveLength(1);
    // No doc in the tab: until the restore ends and the worker answers, the shared query reads pending.
    for (const t of tabs) expect(t.last()).toBe("pending idle -");
    act(() => w.storage.release());
    await waitFor(() => expect(tabs.map((t) => t.last())).toEqual(tabs.map(() => "success idle 2")));
    await pause(300);
    expect(server.seen).toHaveLength(2);
  });

  it.each([
    ["the worker holds the result", undefined],
    ["the worker retired (persister alone)", 0],
  ] as const)("fresh persisted data, %s: no request at all", async (_, retire) => {
    const w = workerBrowser(retire);
    const path = `/worker-reload-fresh-${retire ?? "kept"}`;
    const options = { staleTime: 60_000 };
    await firstVisit(w, path, options);
    if (retire === 0) await waitFor(() => expect(w.b.retired).toHaveLength(1));
    w.storage.gate();
    const tabs = [0, 1, 2].map(() => pane(w.tab(), w.storage, path, options));
    await pause(100);
    act(() => w.storage.release());
    await pause(300);
    expect(server.seen).toHaveLength(1);
    for (const t of tabs) expect(t.last()).toBe("success idle 1");
  });
});

describe("a persisted cache older than the worker's recorded result", () => {
  it("the tab moves on to the worker's newer result once the worker answers, never back, with no request", async () => {
    const w = workerBrowser();
    const path = "/worker-older";
    const options = { staleTime: 60_000 };
    await firstVisit(w, path, options);
    const other = w.tab(); // a tab with no persister refetches: n = 2 recorded by the worker
    await other.refetch({ url: url(path) });
    expect(other.snapshot({ url: url(path) }).data).toEqual({ path: `/s${path}`, n: 2 });
    expect(persistedQueries(w.storage)[0]!.state.data).toEqual({ path: `/s${path}`, n: 1 });
    const reloaded = pane(w.tab(), w.storage, path, options);
    await waitFor(() => expect(reloaded.last()).toBe("success idle 2"));
    await pause(300);
    // The restored n = 1 may show for the round trip to the worker (a per-tab store reads its doc at
    // once and never shows it); once n = 2 shows, it stays.
    const shown = reloaded.log.filter((l) => l.startsWith("success"));
    expect(shown.slice(shown.indexOf("success idle 2"))).toEqual(["success idle 2"]);
    expect(server.seen).toHaveLength(2);
  });

  it("the newer result recorded after the restore: the tab moves on to it, with no request of its own", async () => {
    const w = workerBrowser();
    const path = "/worker-older-later";
    const options = { staleTime: 60_000 };
    await firstVisit(w, path, options);
    const reloaded = pane(w.tab(), w.storage, path, options);
    await waitFor(() => expect(reloaded.last()).toBe("success idle 1"));
    await act(() => w.tab().refetch({ url: url(path) }));
    await waitFor(() => expect(reloaded.last()).toBe("success idle 2"));
    await pause(300);
    expect(reloaded.log.filter((l) => l.startsWith("success"))).toEqual(["success idle 1", "success idle 2"]);
    expect(server.seen).toHaveLength(2);
  });
});
