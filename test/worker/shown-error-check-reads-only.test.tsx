// @vitest-environment jsdom
/**
 * A SharedWorker tab that shows an error for a key it no longer hears of asks the worker what it
 * holds now (another tab's result may have followed the error). When the worker holds nothing for
 * the key (the record swept by retention, or a new worker), that check must only read: the request
 * is the query's own, sent once, with its `leaseMs` and `retry`. The check was an ensure of its
 * own, which sent the request with the store's lease and no retry, and the query's request followed
 * its failure: two requests, the query's options ignored for the first.
 */
import { QueryClient, QueryClientProvider, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/core/internals.ts";
import { SharedFetchProvider, sharedInfiniteQueryOptions, sharedQueryOptions, useProgram, type SharedFetchStore } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const API = "http://127.0.0.1:9/api/shown-error-check";
const PROGRAM = "http://127.0.0.1:9/app/shown-error-check.ts";
const LEASE = 7_000;
const pause = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));

type Opts = { retry: number | false; leaseMs?: number };
type View = (props: { store: SharedFetchStore; opts: Opts }) => ReactNode;

const Shown: View = ({ store, opts }) => {
  const q = useQuery(sharedQueryOptions(store, API, { ...opts, retryDelay: 0, staleTime: 60_000 }));
  return <span data-testid="b">{q.status}</span>;
};

const Feed: View = ({ store, opts }) => {
  const q = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, () => API, {
      ...opts,
      retryDelay: 0,
      initialPageParam: 0,
      getNextPageParam: () => null,
      staleTime: 60_000,
    }),
  );
  return <span data-testid="b">{q.status}</span>;
};

const Code: View = ({ store, opts }) => {
  const q = useProgram(PROGRAM, { ...opts, retryDelay: 0 });
  void store;
  return <span data-testid="b">{q.status}</span>;
};

function pane(View: View, store: SharedFetchStore, client: QueryClient, opts: Opts | undefined): ReactNode {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        {opts ? <View store={store} opts={opts} /> : <span data-testid="b">off</span>}
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** The leases of the claims the worker held as each request was sent, once the pane shows its error again. */
async function remountAfterRecordSwept(View: View, program = false): Promise<number[]> {
  const host = new Host();
  host.auto = () => ({ status: 500, body: {} });
  const b = browser(host);
  const tab = b.tab();
  const client = new QueryClient();
  const view = render(pane(View, tab, client, { retry: false }));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("error"));
  view.rerender(pane(View, tab, client, undefined));
  await pause(20);
  const worker = b.workerStore();
  const key = program ? worker.programKeyOf({ url: PROGRAM }) : worker.keyOf({ url: API });
  const { records } = internalsOf(worker);
  expect(records.errors.get(key)).toBeDefined();
  // What retention's sweep does to a key nobody asked for within its window.
  records.doc.transact(() => records.errors.delete(key));
  const before = host.calls.length;
  const leases: number[] = [];
  // Answered a moment later, when the claim that sent it stands in the worker's doc.
  host.auto = () => ({ status: 500, body: {}, delayMs: 5 });
  host.onCall((call) => {
    if (call.state === "answered") leases.push(records.claims.get(key)?.leaseMs ?? -1);
  });
  view.rerender(pane(View, tab, client, { retry: 1, leaseMs: LEASE }));
  await waitFor(() => expect(host.calls.length - before).toBeGreaterThanOrEqual(2));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("error"));
  await pause(50);
  expect(host.calls.length - before).toBe(leases.length);
  return leases;
}

describe("a shown error's check of the worker, which holds nothing for the key, sends no request: the query's own goes, with its options", () => {
  it("a query", async () => {
    expect(await remountAfterRecordSwept(Shown)).toEqual([LEASE, LEASE]);
  });
  it("an infinite query's page", async () => {
    expect(await remountAfterRecordSwept(Feed)).toEqual([LEASE, LEASE]);
  });
  it("a program", async () => {
    expect(await remountAfterRecordSwept(Code, true)).toEqual([LEASE, LEASE]);
  });
});
