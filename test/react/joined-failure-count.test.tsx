// @vitest-environment jsdom
/**
 * A tab that joined another tab's claim shows the claimant's retries as the claimant does (README,
 * "Retries run inside the claim"): the claimant records in its claim how many attempts failed and
 * the last failure (as its error record would say it), once per failure, and every replica waiting
 * on that claim shows `failureCount` and `failureReason` rising with it; a new claim (a refetch, a
 * takeover after a crash) starts from its own count; the final error counts the last attempt, as
 * TanStack counts it. A peer's malformed count is read as none, never thrown into React, and a
 * claim of an older version (no count) reads 0. Two tabs of one browser (linked real Yjs docs), a
 * real HTTP server on 127.0.0.1, fake timers for the retry delays.
 */
import { QueryClient, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, render } from "@testing-library/react";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReactElement } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { validateClaim } from "../../src/core/records.ts";
import { sharedInfiniteQueryOptions, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { peerWrites } from "../harness/doc-records.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";

/**
 * Answers 503 while `failures` is above 0 (counting down), then 200 with the path and how many it
 * was sent; while `held` is an array, answers wait in it until the test calls them.
 */
const host = { base: "", failures: 0, sent: 0, held: null as (() => void)[] | null };
const server = createServer((req, res) => {
  host.sent++;
  const answer = () =>
    host.failures-- > 0
      ? void res.writeHead(503).end("busy")
      : void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url, n: host.sent }));
  if (host.held) host.held.push(answer);
  else answer();
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.useRealTimers();
  host.failures = host.sent = 0;
  host.held = null;
});

const DELAY = 1000;

function setup() {
  // Timers only: the sockets' I/O runs for real, the retry delays wait for the test.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const tab = (name: string) => c.join({ locks: locks.forTab(name), browserId: "browser-1", fetch: globalThis.fetch });
  return { c, a: tab("a"), b: tab("b") };
}

type Q = { status: string; fetchStatus: string; failureCount: number; failureReason: Error | null };
const line = (q: Q) => `${q.status} ${q.fetchStatus} ${q.failureCount} ${q.failureReason?.message ?? "-"}`;

/** Each pane's distinct states, in order, by name. */
function panes() {
  const logs: Record<string, string[]> = {};
  function Pane({ store, name, path, retry = 2 }: { store: SharedFetchStoreWithExtras; name: string; path: string; retry?: number }) {
    const q = useQuery(sharedQueryOptions(store, `${host.base}${path}`, { retry, retryDelay: DELAY }));
    const log = (logs[name] ??= []);
    if (log.at(-1) !== line(q)) log.push(line(q));
    return null;
  }
  /** A shared feed of one page. */
  function Feed({ store, name, path }: { store: SharedFetchStoreWithExtras; name: string; path: string }) {
    const pages = { initialPageParam: 0, getNextPageParam: () => null, retry: 2, retryDelay: DELAY };
    const q = useInfiniteQuery(sharedInfiniteQueryOptions(store, (c: number) => `${host.base}${path}?cursor=${c}`, pages));
    const log = (logs[name] ??= []);
    if (log.at(-1) !== line(q)) log.push(line(q));
    return null;
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

/** Through the claimant's two retry delays: each failure (1, then 2) shown by pane `claimant` with `joined()` holding, then its delay passed. */
async function throughRetries(last: (name: string) => string | undefined, claimant: string, joined: () => boolean): Promise<void> {
  for (const n of [1, 2]) {
    await settle(() => last(claimant)?.startsWith(`pending fetching ${n}`) === true && joined());
    await advance(DELAY);
  }
}

/** Tab A's pane claims the request, and once tab B sees the claim, B's pane joins it. */
async function claimThenJoin(a: SharedFetchStoreWithExtras, b: SharedFetchStoreWithExtras, claimant: ReactElement, joiner: ReactElement) {
  render(app(a, claimant));
  await settle(() => b.claims().length === 1);
  render(app(b, joiner));
}

const reason = (path: string) => `HTTP 503 Service Unavailable from GET ${host.base}${path}`;

describe("a joined tab's failureCount and failureReason through the claimant's retries", () => {
  it("equal the claimant's at each failure (0, 1, 2), then the error with 3 in both; the host sees one sequence", async () => {
    const { a, b } = setup();
    host.failures = Infinity;
    const { logs, Pane, last } = panes();
    await claimThenJoin(a, b, <Pane store={a} name="a" path="/one" />, <Pane store={b} name="b" path="/one" />);
    await throughRetries(last, "a", () => last("b") === last("a"));
    await settle(() => last("a")?.startsWith("error") === true && last("b")?.startsWith("error") === true);
    const r = reason("/one");
    const expected = ["pending fetching 0 -", `pending fetching 1 ${r}`, `pending fetching 2 ${r}`, `error idle 3 ${r}`];
    expect(logs["a"]).toEqual(expected);
    expect(logs["b"]).toEqual(expected);
    expect(host.sent).toBe(3);
  });

  it("a retry that then succeeds: both show 1, then the data with 0 and no reason", async () => {
    const { a, b } = setup();
    host.failures = 1;
    const { logs, Pane, last } = panes();
    await claimThenJoin(a, b, <Pane store={a} name="a" path="/ok" />, <Pane store={b} name="b" path="/ok" />);
    await settle(() => last("a")?.startsWith("pending fetching 1") === true && last("b") === last("a"));
    await advance(DELAY);
    await settle(() => last("a") === "success idle 0 -" && last("b") === "success idle 0 -");
    expect(logs["b"]).toEqual(logs["a"]);
    expect(logs["b"]).toEqual(["pending fetching 0 -", `pending fetching 1 ${reason("/ok")}`, "success idle 0 -"]);
  });

  it("another QueryClient of the claimant tab that joined its claim shows the count too", async () => {
    const { a } = setup();
    host.failures = Infinity;
    const { logs, Pane, last } = panes();
    render(app(a, <Pane store={a} name="first" path="/two" />));
    await settle(() => a.claims().length === 1);
    render(app(a, <Pane store={a} name="second" path="/two" />, new QueryClient()));
    await throughRetries(last, "first", () => last("second") === last("first"));
    await settle(() => last("second")?.startsWith("error idle 3") === true);
    expect(logs["second"]).toEqual(logs["first"]);
  });

  it("reset on a new claim: the claimant's store asks past the failing request (a newer revision); both tabs count from the new claim", async () => {
    const { a, b } = setup();
    host.failures = Infinity;
    const { Pane, last } = panes();
    await claimThenJoin(a, b, <Pane store={a} name="a" path="/again" retry={5} />, <Pane store={b} name="b" path="/again" retry={5} />);
    await settle(() => last("b")?.startsWith("pending fetching 1") === true);
    const first = b.claims()[0]![1];
    // The new claim's request waits at the host: its count shows before any failure of its own.
    host.held = [];
    // Past the request in flight, as TanStack's refetch() and invalidateQueries ask.
    void a.refetch({ url: `${host.base}/again` }, { skipInFlight: true, retry: 5, retryDelay: DELAY }).catch(() => {});
    await settle(() => b.claims()[0]?.[1].nonce !== first.nonce && host.held!.length === 1);
    await settle(() => last("a") === "pending fetching 0 -" && last("b") === last("a"));
    expect(b.claims()[0]![1].rev).toBe(first.rev + 1);
    // The new claim's own first failure shows in both.
    host.held.pop()!();
    host.held = null;
    await settle(() => last("a")?.startsWith("pending fetching 1") === true && last("b") === last("a"));
  });

  // The claimant's feed shows them as plain useInfiniteQuery does (test/react/failure-count-during-retries.test.tsx).
  // The store tells a join once per key and revision: the second QueryClient's feed of tab B,
  // joined to the same claim, is told by the first's.
  it("useInfiniteQuery: the feeds that joined the claim of the page being fetched (tab B, two QueryClients) show 0, 1, 2, then the error with 3, as the claimant does", async () => {
    const { a, b } = setup();
    host.failures = Infinity;
    const { logs, Feed, last } = panes();
    await claimThenJoin(a, b, <Feed store={a} name="a" path="/feed" />, <Feed store={b} name="b" path="/feed" />);
    render(app(b, <Feed store={b} name="b2" path="/feed" />, new QueryClient()));
    const joined = () => ["b", "b2"].every((name) => last(name) === last("a"));
    await throughRetries(last, "a", joined);
    await settle(() => last("a")?.startsWith("error") === true && joined());
    const r = logs["a"]![1]!.replace("pending fetching 1 ", "");
    expect(r).toMatch(/^HTTP 503 Service Unavailable from GET /);
    const expected = ["pending fetching 0 -", `pending fetching 1 ${r}`, `pending fetching 2 ${r}`, `error idle 3 ${r}`];
    expect(logs["a"]).toEqual(expected);
    expect(logs["b"]).toEqual(expected);
    expect(logs["b2"]).toEqual(expected);
    expect(host.sent).toBe(3);
  });

  it("useInfiniteQuery: a feed whose page the tab already waits on (a useQuery of the same request joined the claim first) shows the claimant's count too", async () => {
    const { a, b } = setup();
    host.failures = Infinity;
    const { logs, Pane, Feed, last } = panes();
    render(app(a, <Feed store={a} name="a" path="/feed" />));
    await settle(() => b.claims().length === 1);
    // B's store joins the claim of the first page for a useQuery before any feed of it asks.
    render(app(b, <Pane store={b} name="pane" path="/feed?cursor=0" />));
    await settle(() => last("pane") === "pending fetching 0 -");
    render(app(b, <Feed store={b} name="b" path="/feed" />, new QueryClient()));
    await throughRetries(last, "a", () => last("pane") === last("a"));
    await settle(() => last("a")?.startsWith("error") === true && last("b")?.startsWith("error") === true);
    expect(logs["b"]).toEqual(logs["a"]);
    expect(host.sent).toBe(3);
  });

  it("takeover: the claimant crashes after 2 failures; the tab that takes over counts from its own claim (0, 1, 2, then 3 with the error)", async () => {
    const { a, b } = setup();
    host.failures = Infinity;
    const { logs, Pane, last } = panes();
    await claimThenJoin(a, b, <Pane store={a} name="a" path="/crash" />, <Pane store={b} name="b" path="/crash" />);
    await settle(() => last("b")?.startsWith("pending fetching 1") === true);
    await advance(DELAY);
    await settle(() => last("b")?.startsWith("pending fetching 2") === true);
    // During its second retry delay: its lock goes, as a dead tab's; b takes the claim over, and
    // its first request waits at the host.
    host.held = [];
    internalsOf(a).dev.crash();
    await settle(() => b.claims()[0]?.[1].replicaId === b.replicaId && host.held!.length === 1);
    await settle(() => last("b") === "pending fetching 0 -");
    host.held.pop()!();
    host.held = null;
    await settle(() => last("b")?.startsWith("pending fetching 1") === true);
    await advance(DELAY);
    await settle(() => last("b")?.startsWith("pending fetching 2") === true);
    await advance(DELAY);
    await settle(() => last("b")?.startsWith("error") === true);
    const r = reason("/crash");
    expect(logs["b"]).toEqual([
      "pending fetching 0 -",
      `pending fetching 1 ${r}`,
      `pending fetching 2 ${r}`,
      // The takeover's claim: a sequence of its own.
      "pending fetching 0 -",
      `pending fetching 1 ${r}`,
      `pending fetching 2 ${r}`,
      `error idle 3 ${r}`,
    ]);
    expect(host.sent).toBe(2 + 3);
  });
});

describe("a claim's failure count as peers write it (invariant 14)", () => {
  const claimOf = (extra: object) => ({ replicaId: "peer-1", nonce: "n-1", rev: 1, leaseMs: 600_000, ...extra });
  const malformed: [string, object][] = [
    ["a string", { failed: "2" }],
    ["a negative count", { failed: { n: -1, message: "boom" } }],
    ["a huge count", { failed: { n: 1e300, message: "boom" } }],
    ["an object as the count", { failed: { n: { n: 2 }, message: "boom" } }],
    ["an object with no count", { failed: { message: "boom" } }],
    ["a count without its failure's message", { failed: { n: 2 } }],
    ["a status that is no integer", { failed: { n: 2, message: "boom", status: "503" } }],
  ];
  for (const [what, extra] of malformed)
    it(`${what}: read as no failure (the claim stands, pending, 0), nothing thrown into React`, async () => {
      const { c, b } = setup();
      const errors = vi.spyOn(console, "error").mockImplementation(() => {});
      const { logs, Pane, last } = panes();
      const key = b.keyOf(`${host.base}/peer`);
      peerWrites(c.docOf(b), [{ t: "claims", k: key, v: claimOf(extra), s: 1 }]);
      render(app(b, <Pane store={b} name="b" path="/peer" />));
      await settle(() => last("b") !== undefined);
      await advance(DELAY);
      expect(b.claims()).toHaveLength(1);
      expect(b.claims()[0]![1]).not.toHaveProperty("failed");
      expect(logs["b"]).toEqual(["pending fetching 0 -"]);
      expect(host.sent).toBe(0);
      expect(errors).not.toHaveBeenCalled();
      errors.mockRestore();
    });

  it("a well-formed count shows at once in a tab that joins the claim mid-way; a claim of an older version (no count) reads 0", async () => {
    const { c, b } = setup();
    const { logs, Pane, last } = panes();
    const key = b.keyOf(`${host.base}/peer`);
    peerWrites(c.docOf(b), [{ t: "claims", k: key, v: claimOf({ failed: { n: 2, message: "boom", status: 503 } }), s: 1 }]);
    render(app(b, <Pane store={b} name="b" path="/peer" />));
    await settle(() => last("b") === "pending fetching 2 boom");
    // The peer's next claim, written by an older version: no count.
    peerWrites(c.docOf(b), [{ t: "claims", k: key, v: claimOf({ nonce: "n-2", rev: 2 }), s: 2 }]);
    await settle(() => last("b") === "pending fetching 0 -");
    expect(logs["b"]).toEqual(["pending fetching 0 -", "pending fetching 2 boom", "pending fetching 0 -"]);
  });

  it("a new claim with the same count shows its own failure as the reason (TanStack's failureReason is the last failure)", async () => {
    const { c, b } = setup();
    const { logs, Pane, last } = panes();
    const key = b.keyOf(`${host.base}/peer`);
    peerWrites(c.docOf(b), [{ t: "claims", k: key, v: claimOf({ failed: { n: 2, message: "boom", status: 503 } }), s: 1 }]);
    render(app(b, <Pane store={b} name="b" path="/peer" />));
    await settle(() => last("b") === "pending fetching 2 boom");
    // The peer's next claim (a refetch past the first) fails twice too, for another reason.
    peerWrites(c.docOf(b), [
      { t: "claims", k: key, v: claimOf({ nonce: "n-2", rev: 2, failed: { n: 2, message: "bust", status: 500 } }), s: 2 },
    ]);
    await settle(() => last("b") === "pending fetching 2 bust");
    expect(logs["b"]).toEqual(["pending fetching 0 -", "pending fetching 2 boom", "pending fetching 2 bust"]);
  });

  it("validateClaim keeps a claim whose count is malformed, without it", () => {
    expect(validateClaim(claimOf({ failed: { n: 3.5, message: "boom" } }))).toEqual(claimOf({}));
    const failed = { n: 3, message: "boom", status: 503 };
    expect(validateClaim(claimOf({ failed }))).toEqual(claimOf({ failed }));
    // Hardening (invariant 14): read as a copy of the fields it names, frozen, never the doc's own object.
    const read = validateClaim(claimOf({ failed: { ...failed, secret: "x" } }));
    if (typeof read === "string") throw new Error(read);
    expect(read.failed).toEqual(failed);
    expect(Object.isFrozen(read.failed)).toBe(true);
  });
});
