// @vitest-environment jsdom
/**
 * sharedInfiniteQueryOptions beside plain useInfiniteQuery, against a real HTTP server on
 * 127.0.0.1 that counts what it is sent: the client's defaults disable it as they disable plain
 * useInfiniteQuery, a cache restored in this tab (setQueryData, hydrate) is refetched page by page
 * on refetch() though another tab recorded those pages within the staleTime, a page's retries
 * (given to the options or as the client's defaults) run in its claim (one revision of the page),
 * the pages before it kept, as TanStack's retryer resumes at the failed page, and
 * `refetchOnMount: "always"` refetches at every mount, not only the first.
 */
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { StrictMode } from "react";
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, type SharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { feedPanes, pagesText, serveFeed, type Page, until } from "../harness/infinite-feed.tsx";
import { app } from "../harness/render-app.tsx";
import { pause as wait, text } from "../harness/side-by-side.tsx";

const server = serveFeed({ last: 3 });
const { seen } = server;
const { feed: sharedFeed } = feedPanes(server);
const newStore = () => createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
const click = (label: string) => act(() => fireEvent.click(screen.getByText(label)));

function Panes({ store, retry, always }: { store: SharedFetchStore; retry?: number; always?: boolean }) {
  const mount = always ? { refetchOnMount: "always" as const } : {};
  const shared = useInfiniteQuery(sharedFeed(store, { ...(retry === undefined ? {} : { retry, retryDelay: 0 }), ...mount }));
  const plain = useInfiniteQuery({
    queryKey: ["plain"],
    queryFn: async ({ pageParam }) => {
      const res = await fetch(`${server.base}/plain?cursor=${pageParam}`);
      if (!res.ok) throw new Error(String(res.status));
      return (await res.json()) as Page;
    },
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
    ...(retry === undefined ? {} : { retry, retryDelay: 0 }),
    ...mount,
  });
  const shown = (q: typeof plain) => `${pagesText(q)} ${q.fetchStatus}`;
  return (
    <>
      <span data-testid="shared">{shown(shared)}</span>
      <span data-testid="plain">{shown(plain)}</span>
      <button onClick={() => void Promise.all([shared.fetchNextPage(), plain.fetchNextPage()])}>more</button>
      <button onClick={() => void Promise.all([shared.refetch(), plain.refetch()])}>refresh</button>
    </>
  );
}

describe("sharedInfiniteQueryOptions keeps useInfiniteQuery's own behaviour", () => {
  it("the client's defaults say enabled: false (defaultOptions, setQueryDefaults): nothing is sent, as for plain useInfiniteQuery", async () => {
    const store = newStore();
    const client = new QueryClient({ defaultOptions: { queries: { enabled: false } } });
    render(app(store as never, <Panes store={store} />, client));
    await wait(300);
    expect([text("shared"), text("plain")]).toEqual(["pending idle", "pending idle"]);
    expect(seen).toEqual([]);
    cleanup();
    const keyed = new QueryClient();
    keyed.setQueryDefaults(["shared-fetch"], { enabled: false });
    render(app(store as never, <Panes store={store} />, keyed));
    await wait(300);
    expect(text("shared")).toBe("pending idle");
    expect(seen.filter((url) => url.startsWith("/feed"))).toEqual([]);
  });

  it("a restored cache, fresh, whose pages another tab recorded within the staleTime: refetch() sends every page anew, as plain useInfiniteQuery does", async () => {
    const store = newStore();
    const feed = sharedFeed(store);
    // Another tab's pages, recorded within the staleTime (v1).
    for (const cursor of [0, 1]) await store.ensure({ url: server.page(cursor) });
    server.version = 2;
    const client = new QueryClient();
    const restored = { pages: [0, 1].map((cursor) => ({ cursor, items: [`item ${cursor}`], next: cursor + 1, v: 1 })), pageParams: [0, 1] };
    client.setQueryData(feed.queryKey, restored);
    client.setQueryData(["plain"], restored);
    render(app(store as never, <Panes store={store} />, client));
    expect([text("shared"), text("plain")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]);
    const before = seen.length;
    await click("refresh");
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    expect(seen.slice(before).sort()).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/plain?cursor=0", "/plain?cursor=1"]);
  });

  it('refetchOnMount: "always": every mount of the query this tab already holds refetches its pages, as plain useInfiniteQuery does (before: the first mount only)', async () => {
    const store = newStore();
    const client = new QueryClient();
    for (let mount = 1; mount <= 3; mount++) {
      server.version = mount;
      render(app(store as never, <Panes store={store} always />, client));
      await until(() => expect([text("shared"), text("plain")]).toEqual([`0@${mount} idle`, `0@${mount} idle`]));
      cleanup();
    }
    expect(seen.filter((url) => url === "/feed?cursor=0")).toHaveLength(3);
    expect(seen.filter((url) => url === "/plain?cursor=0")).toHaveLength(3);
  });

  it('refetchOnMount: "always" in StrictMode: every mount refetches, though its first subscription\'s fetch was cancelled and started again by its second', async () => {
    const store = newStore();
    const client = new QueryClient();
    for (let mount = 1; mount <= 3; mount++) {
      server.version = mount;
      render(<StrictMode>{app(store as never, <Panes store={store} always />, client)}</StrictMode>);
      await until(() => expect([text("shared"), text("plain")]).toEqual([`0@${mount} idle`, `0@${mount} idle`]));
      cleanup();
    }
  });

  it("retry: 1 and the second page fails once during a refetch: that page alone is asked again, in its claim, as plain useInfiniteQuery resumes at it", async () => {
    const store = newStore();
    render(app(store as never, <Panes store={store} retry={1} />));
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more");
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]));
    server.version = 2;
    server.failOnce.add("/feed?cursor=1").add("/plain?cursor=1");
    const before = seen.length;
    await click("refresh");
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    const sent = seen.slice(before);
    expect(sent.filter((url) => url.startsWith("/feed"))).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=1"]);
    expect(sent.filter((url) => url.startsWith("/plain"))).toEqual(["/plain?cursor=0", "/plain?cursor=1", "/plain?cursor=1"]);
    expect((store as SharedFetchStoreWithExtras).resultInfo(server.page(1))?.rev).toBe(2);
  });

  it("retry: 1 as the client's defaults (README: given as the client's defaults, run in each page's claim): the failed page is asked again inside its claim, one revision, as plain resumes at it", async () => {
    const store = newStore();
    const client = new QueryClient({ defaultOptions: { queries: { retry: 1, retryDelay: 0 } } });
    render(app(store as never, <Panes store={store} />, client));
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more");
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]));
    server.version = 2;
    server.failOnce.add("/feed?cursor=1").add("/plain?cursor=1");
    const before = seen.length;
    await click("refresh");
    await until(() => expect([text("shared"), text("plain")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    const sent = seen.slice(before);
    expect(sent.filter((url) => url.startsWith("/feed"))).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=1"]);
    expect(sent.filter((url) => url.startsWith("/plain"))).toEqual(["/plain?cursor=0", "/plain?cursor=1", "/plain?cursor=1"]);
    // Retried in the claim: the refresh's one revision of the page, not a second query-function run's.
    expect((store as SharedFetchStoreWithExtras).resultInfo(server.page(1))?.rev).toBe(2);
  });
});
