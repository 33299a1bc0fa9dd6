// @vitest-environment jsdom
/**
 * sharedInfiniteQueryOptions beside plain useInfiniteQuery, against a real HTTP server on
 * 127.0.0.1 that counts what it is sent: the client's defaults disable it as they disable plain
 * useInfiniteQuery, a cache restored in this tab (setQueryData, hydrate) is refetched page by page
 * on refetch() though another tab recorded those pages within the staleTime, a page's retries
 * run in its claim, the pages before it kept, as TanStack's retryer resumes at the failed page, and
 * `refetchOnMount: "always"` refetches at every mount, not only the first.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { StrictMode } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedInfiniteQueryOptions, type SharedFetchStore } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";

type Page = { cursor: number; next: number | null; v: number };

let server: Server;
let base = "";
const seen: string[] = [];
/** Paths whose next request fails with a 503, once each. */
const failOnce = new Set<string>();
let version = 1;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    if (failOnce.delete(req.url!)) return void res.writeHead(503).end();
    const cursor = Number(new URL(req.url!, "http://x").searchParams.get("cursor"));
    const body: Page = { cursor, next: cursor < 3 ? cursor + 1 : null, v: version };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  cleanup();
  seen.length = 0;
  failOnce.clear();
  version = 1;
});

const newStore = () => createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
const text = (id: string) => screen.getByTestId(id).textContent;
const click = (label: string) => act(() => fireEvent.click(screen.getByText(label)));
const wait = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const sharedFeed = (store: SharedFetchStore, extra: { retry?: number; retryDelay?: number; refetchOnMount?: "always" } = {}) =>
  sharedInfiniteQueryOptions(store, (cursor: number) => `${base}/feed?cursor=${cursor}`, {
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
    ...extra,
  });

function Panes({ store, retry, always }: { store: SharedFetchStore; retry?: number; always?: boolean }) {
  const mount = always ? { refetchOnMount: "always" as const } : {};
  const shared = useInfiniteQuery(sharedFeed(store, { ...(retry === undefined ? {} : { retry, retryDelay: 0 }), ...mount }));
  const plain = useInfiniteQuery({
    queryKey: ["plain"],
    queryFn: async ({ pageParam }) => {
      const res = await fetch(`${base}/plain?cursor=${pageParam}`);
      if (!res.ok) throw new Error(String(res.status));
      return (await res.json()) as Page;
    },
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
    ...(retry === undefined ? {} : { retry, retryDelay: 0 }),
    ...mount,
  });
  const shown = (q: typeof plain) => `${q.data?.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") ?? q.status} ${q.fetchStatus}`;
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
    for (const cursor of [0, 1]) await store.ensure({ url: `${base}/feed?cursor=${cursor}` });
    version = 2;
    const client = new QueryClient();
    const restored = { pages: [0, 1].map((cursor) => ({ cursor, next: cursor + 1, v: 1 })), pageParams: [0, 1] };
    client.setQueryData(feed.queryKey, restored);
    client.setQueryData(["plain"], restored);
    render(app(store as never, <Panes store={store} />, client));
    expect([text("shared"), text("plain")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]);
    const before = seen.length;
    await click("refresh");
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    expect(seen.slice(before).sort()).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/plain?cursor=0", "/plain?cursor=1"]);
  });

  it('refetchOnMount: "always": every mount of the query this tab already holds refetches its pages, as plain useInfiniteQuery does (before: the first mount only)', async () => {
    const store = newStore();
    const client = new QueryClient();
    for (let mount = 1; mount <= 3; mount++) {
      version = mount;
      render(app(store as never, <Panes store={store} always />, client));
      await waitFor(() => expect([text("shared"), text("plain")]).toEqual([`0@${mount} idle`, `0@${mount} idle`]));
      cleanup();
    }
    expect(seen.filter((url) => url === "/feed?cursor=0")).toHaveLength(3);
    expect(seen.filter((url) => url === "/plain?cursor=0")).toHaveLength(3);
  });

  it('refetchOnMount: "always" in StrictMode: every mount refetches, though its first subscription\'s fetch was cancelled and started again by its second', async () => {
    const store = newStore();
    const client = new QueryClient();
    for (let mount = 1; mount <= 3; mount++) {
      version = mount;
      render(<StrictMode>{app(store as never, <Panes store={store} always />, client)}</StrictMode>);
      await waitFor(() => expect([text("shared"), text("plain")]).toEqual([`0@${mount} idle`, `0@${mount} idle`]));
      cleanup();
    }
  });

  it("retry: 1 and the second page fails once during a refetch: that page alone is asked again, in its claim, as plain useInfiniteQuery resumes at it", async () => {
    const store = newStore();
    render(app(store as never, <Panes store={store} retry={1} />));
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more");
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]));
    version = 2;
    failOnce.add("/feed?cursor=1").add("/plain?cursor=1");
    const before = seen.length;
    await click("refresh");
    await waitFor(() => expect([text("shared"), text("plain")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    const sent = seen.slice(before);
    expect(sent.filter((url) => url.startsWith("/feed"))).toEqual(["/feed?cursor=0", "/feed?cursor=1", "/feed?cursor=1"]);
    expect(sent.filter((url) => url.startsWith("/plain"))).toEqual(["/plain?cursor=0", "/plain?cursor=1", "/plain?cursor=1"]);
  });
});
