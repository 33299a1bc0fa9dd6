/**
 * A shared query beside a plain TanStack one, both against one real HTTP server on 127.0.0.1 that
 * counts what it is sent, and two tabs of one browser (linked docs, one lock manager) whose stores
 * fetch through it. Paths under /s are asked through the store, under /p by a plain query function.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { QueryKey, UseQueryOptions } from "@tanstack/react-query";
import { act, cleanup, screen } from "@testing-library/react";
import { afterAll, afterEach, beforeAll } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { cluster } from "./replicas.ts";

/** What the server answers: the path asked and how many times it was asked (1-based). */
export type Body = { path: string; n: number };

export type SideBySideServer = {
  base: string;
  /** Paths asked, in order. */
  seen: string[];
  /** While true, every request is answered 500. */
  failing: boolean;
  /** While an array, answers wait in it until the test calls them (failures too if `holdFailures`). */
  held: (() => void)[] | null;
  /** While true, `held` holds the failures (`failing`, `statusOf`) as well. */
  holdFailures: boolean;
  /** Answers what `held` holds, and stops holding. */
  release(): void;
  /** While set, a path it gives a status (not 0) for is answered with that status. */
  statusOf: ((path: string) => number) | null;
  /** While true, the body leaves out the count: every answer to a path is the same. */
  same: boolean;
  reset(): void;
  close(): Promise<void>;
};

/** Not yet listening: `listen()` starts it on 127.0.0.1 and sets `base`. */
function unstartedServer(): SideBySideServer & { listen(): Promise<void> } {
  const counts = new Map<string, number>();
  const s = {
    base: "",
    seen: [] as string[],
    failing: false,
    held: null as (() => void)[] | null,
    holdFailures: false,
    release: () => {
      const held = s.held ?? [];
      s.held = null;
      for (const answer of held.splice(0)) answer();
    },
    statusOf: null as ((path: string) => number) | null,
    same: false,
    reset: () => {
      s.seen.length = 0;
      counts.clear();
      s.failing = false;
      s.held = null;
      s.holdFailures = false;
      s.statusOf = null;
      s.same = false;
    },
    listen: async () => {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      s.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const path = req.url!;
    s.seen.push(path);
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    const status = s.failing ? 500 : (s.statusOf?.(path) ?? 0);
    const body = s.same ? { path } : { path, n };
    const answer = () =>
      void (status
        ? res.writeHead(status).end("down")
        : res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)));
    if (s.held && (!status || s.holdFailures)) s.held.push(answer);
    else answer();
  });
  return s;
}

export async function sideBySideServer(): Promise<SideBySideServer> {
  const s = unstartedServer();
  await s.listen();
  return s;
}

/** The test file's server: listening before its first test, closed after its last; each test leaves an empty DOM and log behind. */
export function sideBySideServerForFile(): SideBySideServer {
  const s = unstartedServer();
  beforeAll(s.listen);
  afterAll(s.close);
  afterEach(() => {
    cleanup();
    s.reset();
  });
  return s;
}

/**
 * Tabs a and b of one browser whose stores fetch with the real fetch; `join` opens another tab of
 * it, on a copy of `from`'s doc if given (a reload finding what that tab persisted).
 */
export function browserTabs() {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const join = (name: string, from?: SharedFetchStoreWithExtras) =>
    c.join({ locks: locks.forTab(name), browserId: "browser-1", fetch: globalThis.fetch }, from && c.docOf(from));
  return { a: join("a"), b: join("b"), join };
}

/** Two tabs of one browser whose stores fetch with the real fetch. */
export function twoTabs() {
  const { a, b } = browserTabs();
  return [a, b] as const;
}

/**
 * The options of one query both ways, with the same `options`: [0] sharedQueryOptions' (the store
 * asks `${base}/s${path}`), [1] a plain query function over fetch (`${base}/p${path}`).
 */
export function sideBySide(
  server: SideBySideServer,
  store: SharedFetchStoreWithExtras,
  path: string,
  options: object = {},
): [Options, Options] {
  const plainFn = async ({ signal }: { signal: AbortSignal }) => {
    const res = await fetch(`${server.base}/p${path}`, { signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.json()) as Body;
  };
  return [
    sharedQueryOptions<Body>(store, `${server.base}/s${path}`, options) as unknown as Options,
    { queryKey: ["plain", path], queryFn: plainFn, ...options },
  ];
}

/** One side's options, typed alike (the shared side's error is a SharedFetchError). */
export type Options = UseQueryOptions<Body, Error, Body, QueryKey>;

/** A shown value with the /s or /p prefix of its path removed, so both sides compare equal. */
export const unprefixed = (s: string) => s.replace(/\/[sp]\//g, "/");
export const text = (id: string) => screen.getByTestId(id).textContent;
/**
 * A log without the states of a refetch over shown data: TanStack tells its observers on a later
 * task, and an answer from 127.0.0.1 may land first, so either side may render none of them.
 */
export const settled = (log: string[]) => log.filter((s) => !/^(success|error) fetching/.test(s));

export const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
