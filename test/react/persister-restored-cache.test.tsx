// @vitest-environment jsdom
/**
 * What a tab restores from TanStack's persister (PersistQueryClientProvider, an async storage
 * persister) beside what the shared doc recorded since (README, "Coming from TanStack Query"),
 * against a real HTTP server on 127.0.0.1: a persisted cache older than a result another device
 * recorded since, a persisted cache dropped (maxAge, buster), the app's shouldDehydrateQuery,
 * persisted errors, and useSharedFetch's view of a restored query.
 */
import { act, render, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import type { Cluster } from "../harness/replicas.ts";
import {
  loggedPane,
  persistedQueries,
  persistedTab,
  persistingBrowser,
  type MemoryStorage,
  type PersistExtra,
} from "../harness/persister.tsx";
import { pause, sideBySideServerForFile, type Body } from "../harness/side-by-side.tsx";

const server = sideBySideServerForFile();

const url = (path: string) => `${server.base}/s${path}`;

/** A pane of `useQuery(sharedQueryOptions(…))` in a tab restored from `storage`; logs "<status> <fetchStatus> <n>". */
const pane = (store: SharedFetchStoreWithExtras, storage: MemoryStorage, path: string, options: object, extra?: PersistExtra) =>
  loggedPane(store, storage, url(path), options, extra);

/** A first visit: a tab fetches, its persister saves the query (n = 1), the tab closes. */
async function firstVisit(w: ReturnType<typeof persistingBrowser>, path: string, options: object, extra?: PersistExtra) {
  const first = w.tab();
  const one = pane(first, w.storage, path, options, extra);
  await waitFor(() => expect(one.last()).toBe("success idle 1"));
  await waitFor(() => expect(persistedQueries(w.storage)).toHaveLength(1));
  one.unmount();
  first.destroy();
  w.c.crash(first);
  return first;
}

/** Another device refetches: n = 2 recorded. */
async function deviceRefetches(c: Cluster, device: SharedFetchStoreWithExtras, path: string) {
  await device.refetch({ url: url(path) });
  expect(device.snapshot({ url: url(path) }).data).toEqual({ path: `/s${path}`, n: 2 });
  void c;
}

describe("a persisted cache older than what another replica recorded since", () => {
  it("the newer record already in the doc: the tab shows it after the restore, with no request, never the older one", async () => {
    const w = persistingBrowser();
    const options = { staleTime: 60_000 };
    const first = await firstVisit(w, "/older-in-doc", options);
    const device = w.device();
    await deviceRefetches(w.c, device, "/older-in-doc");
    w.storage.gate();
    const tab = w.tab(first);
    await pause(50);
    const p = pane(tab, w.storage, "/older-in-doc", options);
    await pause(50);
    act(() => w.storage.release());
    await pause(300);
    expect(p.log).toEqual(["success idle 2"]);
    expect(server.seen).toHaveLength(2);
  });

  it("the newer record reaching the doc after the restore: the tab moves on to it, with no request", async () => {
    const w = persistingBrowser();
    const options = { staleTime: 60_000 };
    const first = await firstVisit(w, "/older-later", options);
    const device = w.device();
    w.c.net.isolate(w.c.docOf(device));
    await deviceRefetches(w.c, device, "/older-later");
    const tab = w.tab(first);
    const p = pane(tab, w.storage, "/older-later", options);
    await pause(200);
    expect(p.last()).toBe("success idle 1");
    act(() => w.c.net.heal());
    await pause(200);
    expect(p.log).toEqual(["success idle 1", "success idle 2"]);
    expect(server.seen).toHaveLength(2);
  });
});

describe("a persisted cache dropped by maxAge or buster", () => {
  for (const [name, extra] of [
    ["maxAge", { maxAge: 1 }],
    ["buster", { buster: "v2" }],
  ] as const)
    it(`${name}: the tab still starts from the shared record, with no request while it is fresh`, async () => {
      const w = persistingBrowser();
      const options = { staleTime: 60_000 };
      const first = await firstVisit(w, `/dropped-${name}`, options);
      await pause(10);
      const p = pane(w.tab(first), w.storage, `/dropped-${name}`, options, extra);
      await pause(300);
      expect(persistedQueries(w.storage).every((q) => (q.state.data as Body).n === 1)).toBe(true);
      expect(p.log).toEqual(["success idle 1"]);
      expect(server.seen).toHaveLength(1);
    });
});

describe("dehydrateOptions with shared keys", () => {
  it("shouldDehydrateQuery leaving shared queries out: the reload still shows the shared record, fresh, with no request", async () => {
    const w = persistingBrowser();
    const options = { staleTime: 60_000 };
    const extra = { dehydrateOptions: { shouldDehydrateQuery: (q: { queryKey: readonly unknown[] }) => q.queryKey[0] !== "shared-fetch" } };
    const first = w.tab();
    const one = pane(first, w.storage, "/left-out", options, extra);
    await waitFor(() => expect(one.last()).toBe("success idle 1"));
    await pause(50);
    expect(persistedQueries(w.storage)).toEqual([]);
    one.unmount();
    first.destroy();
    w.c.crash(first);
    const p = pane(w.tab(first), w.storage, "/left-out", options, extra);
    await pause(300);
    expect(p.log).toEqual(["success idle 1"]);
    expect(server.seen).toHaveLength(1);
  });

  it("a persisted error (shouldDehydrateQuery keeping errors): the reload asks again, once, and shows the answer", async () => {
    const w = persistingBrowser();
    const options = { staleTime: 60_000, retry: false };
    const extra = { dehydrateOptions: { shouldDehydrateQuery: () => true } };
    server.failing = true;
    const first = w.tab();
    const one = pane(first, w.storage, "/persisted-error", options, extra);
    await waitFor(() => expect(one.last()).toBe("error idle -"));
    await waitFor(() => expect(persistedQueries(w.storage).map((q) => q.state.status)).toEqual(["error"]));
    one.unmount();
    first.destroy();
    w.c.crash(first);
    server.failing = false;
    const p = pane(w.tab(first), w.storage, "/persisted-error", options, extra);
    await waitFor(() => expect(p.last()).toBe("success idle 2"));
    await pause(100);
    expect(server.seen).toHaveLength(2);
  });
});

describe("useSharedFetch on a query restored by the persister", () => {
  it("reads its view (data, claim, isFetchingAnywhere) from the restored query and the store, with no request while fresh", async () => {
    const w = persistingBrowser();
    const options = { staleTime: 60_000 };
    const first = await firstVisit(w, "/view", options);
    const tab = w.tab();
    const log: string[] = [];
    function View() {
      const q = useSharedFetch<Body>(url("/view"), options);
      const shown = `${q.status} ${q.data?.n ?? "-"} ${q.claim ? "claim" : "-"} ${q.isFetchingAnywhere}`;
      if (log.at(-1) !== shown) log.push(shown);
      return null;
    }
    render(persistedTab(tab, w.storage, <View />).element);
    await pause(300);
    expect(log.at(-1)).toBe("success 1 - false");
    expect(server.seen).toHaveLength(1);
    void first;
  });

  it("two tabs restoring stale data: both show the claim of the one request and isFetchingAnywhere while it runs, then its answer", async () => {
    const w = persistingBrowser();
    const options = { staleTime: 400 };
    await firstVisit(w, "/view-stale", options);
    await pause(500);
    server.held = [];
    const logs: string[][] = [[], []];
    const View = ({ i }: { i: 0 | 1 }) => {
      const q = useSharedFetch<Body>(url("/view-stale"), options);
      const shown = `${q.data?.n ?? "-"} ${q.claim ? "claim" : "-"} ${q.isFetchingAnywhere}`;
      if (logs[i]!.at(-1) !== shown) logs[i]!.push(shown);
      return null;
    };
    for (const i of [0, 1] as const) render(persistedTab(w.tab(), w.storage, <View i={i} />).element);
    await waitFor(() => expect(server.held).toHaveLength(1));
    await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(["1 claim true", "1 claim true"]));
    act(() => server.held!.shift()!());
    await waitFor(() => expect(logs.map((l) => l.at(-1))).toEqual(["2 - false", "2 - false"]));
    await pause(100);
    expect(server.seen).toHaveLength(2);
  });
});
