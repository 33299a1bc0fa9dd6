// @vitest-environment jsdom
/**
 * A query that waits on a request another ask of its store started shows that request's retries,
 * as a plain useQuery and useInfiniteQuery show their own (0, 1, 2, then the error with 3): when
 * the store already waited on another tab's claim before any QueryClient was bridged to it (an
 * ensure outside React: a prefetch, a loader), and in the claimant's own tab, in a second
 * QueryClient whose ask joined the request the first one's runs, a feed's joining a useQuery's
 * too (before, that feed showed 0 until the error). Two tabs of one browser (linked
 * real Yjs docs), a real HTTP server on 127.0.0.1, fake timers for the retry delays.
 */
import { QueryClient, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, render } from "@testing-library/react";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sharedInfiniteQueryOptions, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

/** Answers 503, counting what it was sent. */
const host = { base: "", sent: 0 };
const server = createServer((_req, res) => {
  host.sent++;
  res.writeHead(503).end("busy");
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.useRealTimers();
  host.sent = 0;
});

const DELAY = 1000;
const options = { retry: 2, retryDelay: DELAY };

function setup() {
  // Timers only: the sockets' I/O runs for real, the retry delays wait for the test.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const tab = (name: string) => c.join({ locks: locks.forTab(name), browserId: "browser-1", fetch: globalThis.fetch });
  return { a: tab("a"), b: tab("b") };
}

type Q = { status: string; fetchStatus: string; failureCount: number; failureReason: Error | null };
const line = (q: Q) => `${q.status} ${q.fetchStatus} ${q.failureCount} ${q.failureReason?.message ?? "-"}`;

/** Each view's distinct states, in order, by name: a pane (useQuery) or a feed of one page (useInfiniteQuery). */
function views() {
  const logs: Record<string, string[]> = {};
  const note = (name: string, q: Q) => {
    const log = (logs[name] ??= []);
    if (log.at(-1) !== line(q)) log.push(line(q));
    return null;
  };
  function Pane({ store, name, path }: { store: SharedFetchStoreWithExtras; name: string; path: string }) {
    return note(name, useQuery(sharedQueryOptions(store, `${host.base}${path}`, options)));
  }
  function Feed({ store, name, path }: { store: SharedFetchStoreWithExtras; name: string; path: string }) {
    const pages = { initialPageParam: 0, getNextPageParam: () => null, ...options };
    return note(name, useInfiniteQuery(sharedInfiniteQueryOptions(store, (c: number) => `${host.base}${path}?cursor=${c}`, pages)));
  }
  return { logs, Pane, Feed, last: (name: string) => logs[name]?.at(-1) };
}

/** Real I/O turns and due zero-delay timers (TanStack's notifications), until `done` holds; no time passes on the fake clock. */
async function settle(done: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++)
    await act(async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(0);
    });
  expect(done()).toBe(true);
}
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

/** Through the claimant's two retry delays (failures 1 and 2 shown by `claimant`, `joined` following each), to the error. */
async function throughRetries(last: (name: string) => string | undefined, claimant: string, joined: string): Promise<void> {
  for (const n of [1, 2]) {
    await settle(() => last(claimant)?.startsWith(`pending fetching ${n}`) === true && last(joined) === last(claimant));
    await advance(DELAY);
  }
  await settle(() => last(claimant)?.startsWith("error idle 3") === true && last(joined) === last(claimant));
}

for (const kind of ["Pane", "Feed"] as const) {
  const what = kind === "Pane" ? "useQuery" : "useInfiniteQuery";
  describe(`${what}: the claim's retries, in a query whose store's ask joined it before the query did`, () => {
    it("a store that waited on another tab's claim before any QueryClient was bridged to it (an ensure outside React) shows them", async () => {
      const { a, b } = setup();
      const v = views();
      const View = v[kind];
      const path = "/before-bridge";
      render(app(a, <View store={a} name="a" path={path} />));
      await settle(() => b.claims().length === 1 && v.last("a")?.startsWith("pending fetching 1") === true);
      // B's store joins A's claim with no bridge made yet: a prefetch outside React.
      const url = `${host.base}${path}${kind === "Feed" ? "?cursor=0" : ""}`;
      void b.ensure({ url }).catch(() => {});
      await settle(() => b.inspect().keys.some((k) => k.local?.waiters === 1));
      render(app(b, <View store={b} name="b" path={path} />, new QueryClient()));
      await throughRetries(v.last, "a", "b");
      expect(v.logs["b"]).toEqual(v.logs["a"]);
      expect(host.sent).toBe(3);
    });

    it("a second QueryClient of the claimant's tab, whose ask joined the request the first one's runs, shows them", async () => {
      const { a } = setup();
      const v = views();
      const View = v[kind];
      render(app(a, <View store={a} name="first" path="/claimant-tab" />));
      await settle(() => a.claims().length === 1);
      render(app(a, <View store={a} name="second" path="/claimant-tab" />, new QueryClient()));
      await throughRetries(v.last, "first", "second");
      expect(v.logs["second"]).toEqual(v.logs["first"]);
      expect(host.sent).toBe(3);
    });
  });
}

it("a feed of a second QueryClient of the claimant's tab, whose page's ask joined a useQuery's request, shows its retries", async () => {
  const { a } = setup();
  const v = views();
  render(app(a, <v.Pane store={a} name="pane" path="/pane-then-feed?cursor=0" />));
  await settle(() => a.claims().length === 1);
  render(app(a, <v.Feed store={a} name="feed" path="/pane-then-feed" />, new QueryClient()));
  await throughRetries(v.last, "pane", "feed");
  expect(v.logs["feed"]).toEqual(v.logs["pane"]);
  expect(host.sent).toBe(3);
});
