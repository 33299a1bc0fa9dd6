/**
 * A feed of pages served by a real HTTP server on 127.0.0.1 that counts what it is sent, and the
 * panes the infinite-query tests show it in: the shared feed (sharedInfiniteQueryOptions, page n
 * at `/feed?cursor=n`) and plain useInfiniteQuery beside it (`/plain?cursor=n`), each with a
 * "more" (fetchNextPage) and a "refresh" (refetch) button.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, useInfiniteQuery, type InfiniteData } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterAll, afterEach, beforeAll } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStore, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "./render-app.tsx";

/** A page as the server answers it: `v` is the server's `version` when it answered. */
export type Page = { cursor: number; items: string[]; next: number | null; v: number };

export type FeedServer = {
  base: string;
  /** Paths asked, in order. */
  seen: string[];
  /** Paths whose request closed before it was answered (aborted by the client). */
  aborted: string[];
  /** While an array, answers wait in it until release(). */
  held: (() => void)[] | null;
  /** Paths whose next request fails with a 503, once each. */
  failOnce: Set<string>;
  version: number;
  /** From this version on, page 0 links to page 2 (the feed's cursors changed between refreshes). */
  skipFrom: number;
  count(path: string): number;
  /** Answers every held request. */
  release(): void;
  /** The shared feed's URL of a page. */
  page(cursor: number): string;
};

/**
 * Serves pages 0 to `last` for the file's tests: started before them, reset after each (the
 * rendered panes cleaned up first), closed after all.
 */
export function serveFeed({ last }: { last: number }): FeedServer {
  let server: Server;
  const s: FeedServer = {
    base: "",
    seen: [],
    aborted: [],
    held: null,
    failOnce: new Set(),
    version: 1,
    skipFrom: Infinity,
    count: (path) => s.seen.filter((url) => url === path).length,
    release: () => s.held!.splice(0).forEach((answer) => answer()),
    page: (cursor) => `${s.base}/feed?cursor=${cursor}`,
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url!;
      s.seen.push(path);
      res.on("close", () => void (res.writableEnded || s.aborted.push(path)));
      if (s.failOnce.delete(path)) return void res.writeHead(503).end();
      const cursor = Number(new URL(path, "http://x").searchParams.get("cursor"));
      const next = cursor === 0 && s.version >= s.skipFrom ? 2 : cursor < last ? cursor + 1 : null;
      const body: Page = { cursor, items: [`item ${cursor}`], next, v: s.version };
      const answer = () => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (s.held) s.held.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    s.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    cleanup();
    s.seen.length = 0;
    s.aborted.length = 0;
    s.held = null;
    s.failOnce.clear();
    s.version = 1;
    s.skipFrom = Infinity;
  });
  return s;
}

/** Options of the shared feed a test may set; the panes' defaults are a staleTime of a minute. */
export type FeedOptions = {
  staleTime?: number | undefined;
  maxPages?: number | undefined;
  retry?: number | boolean | undefined;
  retryDelay?: number | undefined;
  refetchOnMount?: "always" | undefined;
};

type FeedQuery = ReturnType<typeof useInfiniteQuery<Page, Error, InfiniteData<Page>, readonly unknown[], number>>;

/** The pages shown, `cursor@version` each, or the query's status while it has none. */
export const pagesText = (q: { data?: InfiniteData<Page> | undefined; status: string }) =>
  q.data ? q.data.pages.map((p) => `${p.cursor}@${p.v}`).join(" ") : q.status;

function Shown({ name, q }: { name: string; q: FeedQuery }) {
  return (
    <>
      <span data-testid={name}>{`${pagesText(q)} ${q.fetchStatus}${q.error ? " error" : ""}`}</span>
      <button onClick={() => void q.fetchNextPage().catch(() => {})}>{`more ${name}`}</button>
      <button onClick={() => void q.refetch().catch(() => {})}>{`refresh ${name}`}</button>
    </>
  );
}

/** Options given as undefined are left out, as a test that does not set them leaves them out. */
const defined = (options: FeedOptions) => Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as FeedOptions;

/** The feed's options and panes over `server`, with `defaults` for every feed of the file. */
export function feedPanes(server: FeedServer, defaults: FeedOptions = {}) {
  const staleTime = defaults.staleTime ?? 60_000;
  const feed = (store: SharedFetchStore, options: FeedOptions = {}) =>
    sharedInfiniteQueryOptions(store, (cursor: number) => server.page(cursor), {
      initialPageParam: 0,
      getNextPageParam: (last: Page) => last.next,
      staleTime,
      ...defined(defaults),
      ...defined(options),
    });

  function Feed({ store, name, ...options }: { store: SharedFetchStoreWithExtras; name: string } & FeedOptions) {
    return <Shown name={name} q={useInfiniteQuery(feed(store, options))} />;
  }

  function PlainFeed({ name }: { name: string }) {
    const q = useInfiniteQuery({
      queryKey: ["plain-feed"],
      queryFn: async ({ pageParam, signal }) =>
        (await (await fetch(`${server.base}/plain?cursor=${pageParam}`, { signal })).json()) as Page,
      initialPageParam: 0,
      getNextPageParam: (last: Page) => last.next,
      staleTime,
    });
    return <Shown name={name} q={q} />;
  }

  /** Tabs a and b, each with its own QueryClient (returned) showing the shared feed and a plain one. */
  function renderTabs(a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras, options: FeedOptions = {}) {
    const clients = [new QueryClient(), new QueryClient()] as const;
    const pane = (store: SharedFetchStoreWithExtras, name: string, client: QueryClient) =>
      app(
        store,
        <>
          <Feed store={store} name={name} {...options} />
          <PlainFeed name={`plain ${name}`} />
        </>,
        client,
      );
    render(
      <>
        {pane(a, "a", clients[0])}
        {pane(b, "b", clients[1])}
      </>,
    );
    return clients;
  }

  return { feed, Feed, PlainFeed, renderTabs };
}

/** The user clicks the `label` button ("more", "refresh") of each named pane. */
export const click = (label: string, ...names: string[]) =>
  act(() => names.forEach((n) => fireEvent.click(screen.getByText(`${label} ${n}`))));

/**
 * Waits for what the feed's requests and their answers lead to in the tabs: up to 5 s, not
 * waitFor's default second. A wait covers real HTTP on 127.0.0.1, a page's way through the doc to
 * the other tabs and renders in each, which on a loaded machine took longer than that second.
 */
export const until = (check: () => void) => waitFor(check, { timeout: 5_000 });
