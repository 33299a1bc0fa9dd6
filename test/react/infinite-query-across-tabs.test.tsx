// @vitest-environment jsdom
/**
 * A feed on useInfiniteQuery, shown in two tabs of one browser (linked docs, one lock manager),
 * each page a GET to a real HTTP server on 127.0.0.1 that counts what it is sent. Each page is
 * one request across the tabs (sharedInfiniteQueryOptions), where plain useInfiniteQuery in each
 * tab sends every page once per tab; refetch() and invalidateQueries ask every page anew, as
 * TanStack does, also within the staleTime.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, useInfiniteQuery, type InfiniteData } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { sharedInfiniteQueryOptions, SharedFetchError, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

type Page = { cursor: number; items: string[]; next: number | null; v: number };

let server: Server;
let base = "";
const seen: string[] = [];
/** Answers held back while true: two tabs asking at the same moment is what this pins. */
let held: (() => void)[] | null = null;
let version = 1;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    const cursor = Number(new URL(req.url!, "http://x").searchParams.get("cursor"));
    const body: Page = { cursor, items: [`item ${cursor}`], next: cursor < 3 ? cursor + 1 : null, v: version };
    const answer = () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (held) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  cleanup();
  seen.length = 0;
  held = null;
  version = 1;
});

const count = (path: string) => seen.filter((url) => url === path).length;
const text = (id: string) => screen.getByTestId(id).textContent;
const wait = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

async function twoTabs() {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1", fetch: globalThis.fetch });
  const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1", fetch: globalThis.fetch });
  return [a, b] as const;
}

const feed = (store: SharedFetchStoreWithExtras, extra: { maxPages?: number } = {}) =>
  sharedInfiniteQueryOptions(store, (cursor: number) => `${base}/feed?cursor=${cursor}`, {
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
    ...extra,
  });

/** The user clicks a pane's "more" (fetchNextPage) or "refresh" (refetch) button. */
const click = (label: string, ...names: string[]) => act(() => names.forEach((n) => fireEvent.click(screen.getByText(`${label} ${n}`))));

function Shown({
  name,
  q,
}: {
  name: string;
  q: ReturnType<typeof useInfiniteQuery<Page, Error, InfiniteData<Page>, readonly unknown[], number>>;
}) {
  const shown = q.data ? q.data.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") : q.status;
  return (
    <>
      <span data-testid={name}>{`${shown} ${q.fetchStatus}`}</span>
      <button onClick={() => void q.fetchNextPage()}>{`more ${name}`}</button>
      <button onClick={() => void q.refetch()}>{`refresh ${name}`}</button>
    </>
  );
}

function Feed({ store, name, maxPages }: { store: SharedFetchStoreWithExtras; name: string; maxPages?: number }) {
  const q = useInfiniteQuery(feed(store, maxPages ? { maxPages } : {}));
  return <Shown name={name} q={q} />;
}

function PlainFeed({ name }: { name: string }) {
  const q = useInfiniteQuery({
    queryKey: ["plain-feed"],
    queryFn: async ({ pageParam, signal }) => (await (await fetch(`${base}/plain?cursor=${pageParam}`, { signal })).json()) as Page,
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
  });
  return <Shown name={name} q={q} />;
}

function renderTabs(a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras, maxPages?: number) {
  const clients = [new QueryClient(), new QueryClient()] as const;
  render(
    <>
      {app(
        a,
        <>
          <Feed store={a} name="a" maxPages={maxPages} />
          <PlainFeed name="plain a" />
        </>,
        clients[0],
      )}
      {app(
        b,
        <>
          <Feed store={b} name="b" maxPages={maxPages} />
          <PlainFeed name="plain b" />
        </>,
        clients[1],
      )}
    </>,
  );
  return clients;
}

describe("sharedInfiniteQueryOptions: each page of a feed is one request across tabs (useInfiniteQuery)", () => {
  it("two tabs mount the feed and both load the next page at once: one request per page, where plain useInfiniteQuery sends each page per tab", async () => {
    const [a, b] = await twoTabs();
    held = [];
    renderTabs(a, b);
    await waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(3));
    await wait(100); // a second request of the first page would have left by now
    held.splice(0).forEach((answer) => answer());
    held = null;
    await waitFor(() => expect(["a", "b", "plain a", "plain b"].map(text)).toEqual(Array(4).fill("0@1 idle")));
    held = [];
    await click("more", "a", "b", "plain a", "plain b");
    await waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(6));
    await wait(100);
    held.splice(0).forEach((answer) => answer());
    held = null;
    await waitFor(() => expect(["a", "b", "plain a", "plain b"].map(text)).toEqual(Array(4).fill("0@1 1@1 idle")));
    expect([count("/feed?cursor=0"), count("/feed?cursor=1")]).toEqual([1, 1]);
    expect([count("/plain?cursor=0"), count("/plain?cursor=1")]).toEqual([2, 2]);
  });

  it("fetchNextPage in a tab after the other loaded that page within the staleTime: no request (the recorded page answers)", async () => {
    const [a, b] = await twoTabs();
    renderTabs(a, b);
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more", "a");
    await waitFor(() => expect(text("a")).toBe("0@1 1@1 idle"));
    await click("more", "b");
    await waitFor(() => expect(text("b")).toBe("0@1 1@1 idle"));
    expect(count("/feed?cursor=1")).toBe(1);
  });

  it("refetch() within the staleTime refetches every page, as plain useInfiniteQuery does; the other tab shows them, and its next mount within the staleTime takes them", async () => {
    const [a, b] = await twoTabs();
    renderTabs(a, b);
    await waitFor(() => expect([text("a"), text("plain a")]).toEqual(["0@1 idle", "0@1 idle"]));
    await click("more", "a", "plain a");
    await waitFor(() => expect([text("a"), text("plain a")]).toEqual(["0@1 1@1 idle", "0@1 1@1 idle"]));
    version = 2;
    const before = [count("/feed?cursor=0"), count("/feed?cursor=1"), count("/plain?cursor=0"), count("/plain?cursor=1")];
    await click("refresh", "a", "plain a");
    await waitFor(() => expect([text("a"), text("plain a")]).toEqual(["0@2 1@2 idle", "0@2 1@2 idle"]));
    const after = [count("/feed?cursor=0"), count("/feed?cursor=1"), count("/plain?cursor=0"), count("/plain?cursor=1")];
    expect(after.map((n, i) => n - before[i]!)).toEqual([1, 1, 1, 1]);
    // Tab b showed page 0 alone: a's newer page 0 reached it as it was recorded.
    await waitFor(() => expect(text("b")).toBe("0@2 idle"));
    cleanup();
    renderTabs(a, b);
    // Mounted anew, it shows the chain a recorded, within the staleTime.
    await waitFor(() => expect(text("b")).toBe("0@2 1@2 idle"));
    expect([count("/feed?cursor=0"), count("/feed?cursor=1")]).toEqual([before[0]! + 1, before[1]! + 1]);
  });

  it("invalidateQueries refetches every page within the staleTime; maxPages keeps and refetches only the last pages", async () => {
    const [a, b] = await twoTabs();
    const [clientA] = renderTabs(a, b, 2);
    await waitFor(() => expect(text("a")).toBe("0@1 idle"));
    await click("more", "a");
    await waitFor(() => expect(text("a")).toBe("0@1 1@1 idle"));
    await click("more", "a");
    await waitFor(() => expect(text("a")).toBe("1@1 2@1 idle"));
    version = 2;
    const before = seen.length;
    await act(() => clientA.invalidateQueries({ queryKey: feed(a).queryKey }));
    await waitFor(() => expect(text("a")).toBe("1@2 2@2 idle"));
    expect(seen.slice(before).filter((url) => url.startsWith("/feed"))).toEqual(["/feed?cursor=1", "/feed?cursor=2"]);
  });

  it("infers the page and pageParam types; select shapes the data; a page's bad URL is the query's SharedFetchError", async () => {
    const [a] = await twoTabs();
    const options = feed(a);
    expectTypeOf(options.initialPageParam).toEqualTypeOf<number>();
    expectTypeOf(options.queryFn!).parameter(0).toHaveProperty("pageParam").toEqualTypeOf<number>();
    function Selected() {
      const q = useInfiniteQuery({ ...options, select: (data: InfiniteData<Page, number>) => data.pages.flatMap((p) => p.items) });
      expectTypeOf(q.data).toEqualTypeOf<string[] | undefined>();
      return <span data-testid="selected">{q.data?.join(",") ?? q.status}</span>;
    }
    function Broken() {
      const q = useInfiniteQuery(
        sharedInfiniteQueryOptions(a, (cursor: number) => (cursor === 0 ? `${base}/feed?cursor=0` : "http://"), {
          initialPageParam: 0,
          getNextPageParam: (last: Page) => last.next,
          retry: false,
        }),
      );
      if (q.data && q.hasNextPage && !q.isFetching && !q.error) void q.fetchNextPage();
      expectTypeOf(q.error).toEqualTypeOf<SharedFetchError | null>();
      return <span data-testid="broken">{q.error ? q.error.message : q.status}</span>;
    }
    render(
      app(
        a,
        <>
          <Selected />
          <Broken />
        </>,
      ),
    );
    await waitFor(() => expect(text("selected")).toBe("item 0"));
    await waitFor(() => expect(text("broken")).toMatch(/http:\/\/.*(URL|url)/));
  });
});
