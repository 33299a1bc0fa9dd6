/**
 * README, "Infinite queries": the client's `fetchInfiniteQuery`, `prefetchInfiniteQuery` and
 * `ensureInfiniteQueryData` with `sharedInfiniteQueryOptions` start from the chain of pages any
 * tab recorded, as a mount does (the recorded pages are the feed's initial data): on a tab whose
 * cache is empty they give every recorded page within the `staleTime`, with no request, where plain
 * TanStack fetches `pages` pages (one by default). Two tabs of one browser (linked docs, one lock
 * manager), each page a GET to a real HTTP server on 127.0.0.1 that counts what it is sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QueryClient, type InfiniteData } from "@tanstack/react-query";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sharedInfiniteQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { cluster } from "../harness/replicas.ts";

type Page = { cursor: number; next: number | null };

let server: Server;
let base = "";
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    const cursor = Number(new URL(req.url!, "http://x").searchParams.get("cursor"));
    const body: Page = { cursor, next: cursor < 3 ? cursor + 1 : null };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function twoTabs() {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const join = (name: string) => c.join({ locks: locks.forTab(name), browserId: "browser-1", fetch: globalThis.fetch });
  return [join("a"), join("b")] as const;
}

const feed = (store: SharedFetchStoreWithExtras) =>
  sharedInfiniteQueryOptions(store, (cursor: number) => `${base}/feed?cursor=${cursor}`, {
    initialPageParam: 0,
    getNextPageParam: (last: Page) => last.next,
    staleTime: 60_000,
  });
const cursors = (data: InfiniteData<unknown> | undefined) => (data?.pages as Page[] | undefined)?.map((p) => p.cursor);

it("fetchInfiniteQuery, prefetchInfiniteQuery and ensureInfiniteQueryData on an empty cache give the pages another tab recorded, with no request", async () => {
  const [a, b] = twoTabs();
  seen.length = 0;
  const recorded = await new QueryClient().fetchInfiniteQuery({ ...feed(a), pages: 2 });
  expect(cursors(recorded)).toEqual([0, 1]);
  expect(seen).toHaveLength(2);

  expect(cursors(await new QueryClient().fetchInfiniteQuery(feed(b)))).toEqual([0, 1]);
  const prefetching = new QueryClient();
  await prefetching.prefetchInfiniteQuery(feed(b));
  expect(cursors(prefetching.getQueryData(feed(b).queryKey))).toEqual([0, 1]);
  expect(cursors(await new QueryClient().ensureInfiniteQueryData(feed(b)))).toEqual([0, 1]);
  expect(seen).toHaveLength(2);
});
