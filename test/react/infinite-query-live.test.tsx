// @vitest-environment jsdom
/**
 * An infinite query stays fresh across tabs: a feed shown in two tabs of one browser (linked docs,
 * one lock manager), each page a GET to a real HTTP server on 127.0.0.1 that counts what it is
 * sent. Another tab's newer pages reach an observed feed as they are recorded, whole (every shown
 * page newer and the chain of pageParams unbroken), with no request of its own; a reload shows the
 * recorded chain of pages before its first fetch, as a persister's restore would.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, useInfiniteQuery } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

type Page = { cursor: number; next: number | null; v: number };

let server: Server;
let base = "";
const seen: string[] = [];
/** Answers held back while set: a refresh caught between its pages. */
let held: (() => void)[] | null = null;
/** Paths whose next request fails with a 503, once each. */
const failOnce = new Set<string>();
let version = 1;
/** From this version on, page 0 links to page 2 (the feed's cursors changed between refreshes). */
let skipFrom = Infinity;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    if (failOnce.delete(req.url!)) return void res.writeHead(503).end();
    const cursor = Number(new URL(req.url!, "http://x").searchParams.get("cursor"));
    const next = cursor === 0 && version >= skipFrom ? 2 : cursor < 3 ? cursor + 1 : null;
    const body: Page = { cursor, next, v: version };
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
  failOnce.clear();
  version = 1;
  skipFrom = Infinity;
});

const text = (id: string) => screen.getByTestId(id).textContent;
const wait = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
const feedRequests = () => seen.filter((url) => url.startsWith("/feed")).length;
const page = (cursor: number) => `${base}/feed?cursor=${cursor}`;

function tabs() {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const join = (name: string, from?: SharedFetchStoreWithExtras) =>
    c.join({ locks: locks.forTab(name), browserId: "browser-1", fetch: globalThis.fetch }, from && c.docOf(from));
  return { a: join("a"), b: join("b"), join };
}

function Feed({
  store,
  name,
  staleTime = 60_000,
  maxPages,
}: {
  store: SharedFetchStoreWithExtras;
  name: string;
  staleTime?: number;
  maxPages?: number;
}) {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, (cursor: number) => page(cursor), {
      initialPageParam: 0,
      getNextPageParam: (last: Page) => last.next,
      staleTime,
      retry: false,
      ...(maxPages ? { maxPages } : {}),
    }),
  );
  const shown = q.data ? q.data.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") : q.status;
  return (
    <>
      <span data-testid={name}>{`${shown} ${q.fetchStatus}${q.error ? " error" : ""}`}</span>
      <button onClick={() => void q.fetchNextPage()}>{`more ${name}`}</button>
      <button onClick={() => void q.refetch()}>{`refresh ${name}`}</button>
    </>
  );
}

function PlainFeed({ name }: { name: string }) {
  const q = useInfiniteQuery({
    queryKey: ["plain-feed"],
    queryFn: async ({ pageParam, signal }) => (await (await fetch(`${base}/plain?cursor=${pageParam}`, { signal })).json()) as Page,
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
  });
  return <span data-testid={name}>{`${q.data?.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") ?? q.status} ${q.fetchStatus}`}</span>;
}

const click = (label: string) => act(() => fireEvent.click(screen.getByText(label)));

/** Tabs a and b both show pages 0 and 1 (b's page 1 taken from a's record), plain feeds beside them. */
async function bothShowTwoPages(a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras) {
  render(
    <>
      {app(a, <Feed store={a} name="a" />, new QueryClient())}
      {app(
        b,
        <>
          <Feed store={b} name="b" />
          <PlainFeed name="plain b" />
        </>,
        new QueryClient(),
      )}
    </>,
  );
  await waitFor(() => expect([text("a"), text("b"), text("plain b")]).toEqual(["0@1 idle", "0@1 idle", "0@1 idle"]));
  await click("more a");
  await waitFor(() => expect(text("a")).toBe("0@1 1@1 idle"));
  await click("more b");
  await waitFor(() => expect(text("b")).toBe("0@1 1@1 idle"));
  expect(feedRequests()).toBe(2);
}

describe("an infinite query shows another tab's newer pages as they are recorded", () => {
  it("a refetch() in one tab: the other tab's feed shows the newer pages at once, with no request of its own; plain useInfiniteQuery keeps the old ones", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    version = 2;
    await click("refresh a");
    await waitFor(() => expect(text("b")).toBe("0@2 1@2 idle"));
    expect(text("a")).toBe("0@2 1@2 idle");
    await wait(50);
    expect(feedRequests()).toBe(4);
    expect(text("plain b")).toBe("0@1 idle");
  });

  it("never a mix of two refreshes: while the other tab has recorded only the first page anew, the old pages stay", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    version = 2;
    held = [];
    await click("refresh a");
    await waitFor(() => expect(held!.length).toBe(1));
    held.splice(0).forEach((answer) => answer());
    await waitFor(() => expect(held!.length).toBe(1)); // page 0 recorded, page 1 asked
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    held.splice(0).forEach((answer) => answer());
    held = null;
    await waitFor(() => expect(text("b")).toBe("0@2 1@2 idle"));
    expect(feedRequests()).toBe(4);
  });

  it("an error recorded for a page is never put over its data: the other tab's failed refresh leaves the shown pages, with no error", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    version = 2;
    failOnce.add("/feed?cursor=1");
    await click("refresh a");
    await waitFor(() => expect(text("a")).toMatch(/error$/));
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    expect(feedRequests()).toBe(4);
  });

  it("newer pages whose chain of pageParams broke (page 0 now links to page 2) are not put, nor a page 0 newer than the page 1 after it (two refreshes); a refresh's unbroken chain is", async () => {
    const { a, b } = tabs();
    await bothShowTwoPages(a, b);
    version = 2;
    skipFrom = 2;
    await act(async () => {
      await a.refetch({ url: page(0) });
      await a.refetch({ url: page(1) });
    });
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    skipFrom = Infinity;
    version = 3;
    await act(() => a.refetch({ url: page(0) }));
    await wait(50);
    expect(text("b")).toBe("0@1 1@1 idle");
    await act(() => a.refetch({ url: page(1) }));
    await waitFor(() => expect(text("b")).toBe("0@3 1@3 idle"));
    expect(feedRequests()).toBe(6);
  });
  it("maxPages: a feed showing its last pages takes them from the other tab's refresh of more pages, when each of them is newer", async () => {
    const { a, b } = tabs();
    render(
      <>
        {app(a, <Feed store={a} name="a" />, new QueryClient())}
        {app(b, <Feed store={b} name="b" maxPages={2} />, new QueryClient())}
      </>,
    );
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    for (const step of ["0@1 1@1 idle", "0@1 1@1 2@1 idle"]) {
      await click("more a");
      await waitFor(() => expect(text("a")).toBe(step));
    }
    await click("more b");
    await waitFor(() => expect(text("b")).toBe("0@1 1@1 idle"));
    await click("more b");
    await waitFor(() => expect(text("b")).toBe("1@1 2@1 idle"));
    version = 2;
    await click("refresh a");
    await waitFor(() => expect(text("b")).toBe("1@2 2@2 idle"));
    expect(text("a")).toBe("0@2 1@2 2@2 idle");
    await wait(50);
    expect(feedRequests()).toBe(6);
  });

  it("the app's own setQueryData of the feed (an optimistic update) is kept over pages recorded before it, though of newer revisions", async () => {
    const { a, b } = tabs();
    const clientB = new QueryClient();
    const paneB = () => app(b, <Feed store={b} name="b" />, clientB);
    render(app(a, <Feed store={a} name="a" />, new QueryClient()));
    const shownB = render(paneB());
    await waitFor(() => expect([text("a"), text("b")]).toEqual(["0@1 idle", "0@1 idle"]));
    shownB.unmount();
    version = 2;
    await click("refresh a");
    await waitFor(() => expect(text("a")).toBe("0@2 idle"));
    await wait(10);
    const key = clientB.getQueryCache().getAll()[0]!.queryKey;
    act(() =>
      clientB.setQueryData(key, (old: { pages: Page[]; pageParams: number[] }) => ({ ...old, pages: [{ ...old.pages[0]!, v: 9 }] })),
    );
    render(paneB());
    await wait(50);
    expect(text("b")).toBe("0@9 idle");
    expect(feedRequests()).toBe(2);
  });
});

describe("a reload shows the recorded chain of pages before its first fetch", () => {
  it("within the staleTime: every recorded page of the chain shows at the first render, and nothing is sent", async () => {
    const { a, b, join } = tabs();
    await bothShowTwoPages(a, b);
    await click("more a");
    await waitFor(() => expect(text("a")).toBe("0@1 1@1 2@1 idle"));
    cleanup();
    const reloaded = join("c", a);
    render(app(reloaded, <Feed store={reloaded} name="c" />));
    expect(text("c")).toBe("0@1 1@1 2@1 idle");
    await wait(50);
    expect(feedRequests()).toBe(3);
    cleanup();
    const capped = join("d", a);
    render(app(capped, <Feed store={capped} name="d" maxPages={2} />));
    expect(text("d")).toBe("0@1 1@1 idle");
  });

  it("stale: the recorded pages show, then each is refetched once (as a persister's restore), with no other request", async () => {
    const { a, b, join } = tabs();
    await bothShowTwoPages(a, b);
    cleanup();
    version = 2;
    const reloaded = join("c", a);
    render(app(reloaded, <Feed store={reloaded} name="c" staleTime={0} />));
    expect(text("c")).toBe("0@1 1@1 fetching");
    await waitFor(() => expect(text("c")).toBe("0@2 1@2 idle"));
    await wait(50);
    expect(seen.filter((url) => url.startsWith("/feed")).slice(2)).toEqual(["/feed?cursor=0", "/feed?cursor=1"]);
  });
});
