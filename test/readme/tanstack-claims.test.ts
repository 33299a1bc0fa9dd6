/**
 * README, "Coming from TanStack Query": claims a TanStack user checks with a QueryClient of their
 * own, against a real HTTP server on 127.0.0.1 and stores on real Yjs docs.
 * - `sharedMutationFn(store, request, { retry, retryDelay })` "retries inside the claim, as queries
 *   do", with TanStack's values read as TanStack's retryer reads them (`retry: -1` retries nothing, a
 *   negative delay retries at once, a retryDelay without retry is unread, as useMutation retries
 *   nothing by default), every attempt with one Idempotency-Key.
 * - With no retry given anywhere, TanStack's default: none on a server (Node, as here), as
 *   TanStack's own (3 in a browser: test/readme/tanstack-retry-defaults.test.ts).
 * - An infinite query's default key is the first page's `sharedQueryKey` followed by "infinite",
 *   so `invalidateQueries` with the `["shared-fetch", method, url]` prefix reaches the feed.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MutationObserver, QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  createSharedFetchStore,
  sharedInfiniteQueryOptions,
  sharedMutationFn,
  sharedQueryKey,
  sharedQueryOptions,
} from "../../src/index.ts";

/** Each path fails its first request (HTTP 500) and answers the next ones with their count. */
const calls = new Map<string, IncomingMessage[]>();
let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const seen = [...(calls.get(path) ?? []), req];
    calls.set(path, seen);
    req.resume();
    if (seen.length === 1 && !path.startsWith("/feed")) res.writeHead(500).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ n: seen.length, next: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const stores: { destroy(): void }[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.destroy()));
const makeStore = () => {
  const store = createSharedFetchStore({ doc: new Y.Doc(), locks: null, settleMs: 0 });
  stores.push(store);
  return store;
};

/** What a mutation ends with, and how many requests reached `path`. */
async function mutate(path: string, mutationFn: (n: number) => Promise<unknown>, options: object) {
  const observer = new MutationObserver(new QueryClient(), { mutationFn, ...options });
  const outcome = await observer.mutate(1).then(
    (data) => ({ data }),
    (error: Error) => ({ error: error.message.replace(/\d+\.\d+\.\d+\.\d+:\d+/, "host") }),
  );
  return { outcome, requests: calls.get(path)?.length ?? 0 };
}

describe("README, Coming from TanStack Query: sharedMutationFn's retry is TanStack's, run inside the claim", () => {
  it.each([
    ["retry: -1 (never retried)", { retry: -1 }, 1],
    ["retry: NaN (never retried)", { retry: Number.NaN }, 1],
    ["retry: 1, retryDelay: -1 (a retry at once)", { retry: 1, retryDelay: -1 }, 2],
    ["retry: 1, retryDelay: NaN (a retry at once)", { retry: 1, retryDelay: Number.NaN }, 2],
    ["retry: 1, retryDelay: 0", { retry: 1, retryDelay: 0 }, 2],
    // useMutation retries nothing by default and never reads the delay then.
    ["retryDelay: 1000 without retry (no retry, the delay unread)", { retryDelay: 1000 }, 1],
    ["retryDelay: -5 without retry (no retry, the delay unread)", { retryDelay: -5 }, 1],
    ["retryDelay: a function without retry (no retry, the delay unread)", { retryDelay: () => 1000 }, 1],
  ] as const)("%s: the requests plain useMutation's retry sends, sent once each", async (name, options, attempts) => {
    const id = encodeURIComponent(name);
    // Plain TanStack: the same failing-once host, the option on useMutation itself.
    const plainPath = `/plain-${id}`;
    const plainFn = async () => {
      const res = await fetch(`${base}${plainPath}`, { method: "POST" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.json();
    };
    const plain = await mutate(plainPath, plainFn, options);
    expect(plain.requests).toBe(attempts);

    const sharedPath = `/shared-${id}`;
    const shared = sharedMutationFn(
      makeStore(),
      (n: number) => ({ url: `${base}${sharedPath}`, method: "POST", body: String(n) }),
      options,
    );
    const ours = await mutate(sharedPath, shared, {});
    expect(ours.requests).toBe(attempts);
    expect("data" in ours.outcome).toBe("data" in plain.outcome);
    // Retried inside the claim: one revision, so one Idempotency-Key on every attempt.
    const keys = new Set(calls.get(sharedPath)!.map((req) => req.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/\S/);
  });

  it("a retry of another shape is still refused naming it, nothing sent", async () => {
    const path = "/shared-bad-shape";
    const shared = sharedMutationFn(makeStore(), (_n: number) => ({ url: `${base}${path}`, method: "POST" }), { retry: "3" as never });
    const { outcome, requests } = await mutate(path, shared, {});
    expect(outcome).toEqual({ error: expect.stringMatching(/retry must be .*got "3"/) });
    expect(requests).toBe(0);
  });

  it("a retryDelay of another type given without retry is still refused naming it, nothing sent", async () => {
    const path = "/shared-delay-alone";
    const shared = sharedMutationFn(makeStore(), (_n: number) => ({ url: `${base}${path}`, method: "POST" }), { retryDelay: "5" as never });
    const { outcome, requests } = await mutate(path, shared, {});
    expect(outcome).toEqual({ error: expect.stringMatching(/^shared-fetch: retryDelay must be .*, got "5"$/) });
    expect(requests).toBe(0);
  });
});

describe("README, Coming from TanStack Query: an infinite query's default key", () => {
  it('is the first page\'s sharedQueryKey then "infinite"; an invalidation by the ["shared-fetch", "GET", url] prefix reaches the feed', async () => {
    const store = makeStore();
    const page = (cursor: number) => `${base}/feed?cursor=${cursor}`;
    const feed = sharedInfiniteQueryOptions(store, page, { initialPageParam: 0, getNextPageParam: () => null });
    expect(feed.queryKey).toEqual([...sharedQueryKey(store, page(0)), "infinite"]);
    expect(feed.queryKey.slice(0, 3)).toEqual(["shared-fetch", "GET", `${base}/feed`]);

    const client = new QueryClient();
    await client.fetchInfiniteQuery(feed);
    expect(client.getQueryState(feed.queryKey)?.isInvalidated).toBe(false);
    await client.invalidateQueries({ queryKey: ["shared-fetch", "GET", `${base}/feed`] });
    expect(client.getQueryState(feed.queryKey)?.isInvalidated).toBe(true);
  });
});

describe("README, Coming from TanStack Query: TanStack's default retry on a server", () => {
  it("an observed query given no retry anywhere sends one request in Node and ends in its error, as plain useQuery does there", async () => {
    const path = "/server-default-retry";
    const observer = new QueryObserver(new QueryClient(), sharedQueryOptions(makeStore(), `${base}${path}`));
    const error = await new Promise<Error | null>((resolve) => {
      const off = observer.subscribe((result) => {
        if (result.status !== "error") return;
        off();
        resolve(result.error);
      });
    });
    expect(error?.message).toMatch(/^HTTP 500 Internal Server Error from GET /);
    expect(calls.get(path)).toHaveLength(1);
  });
});
