// @vitest-environment jsdom
/**
 * A tab of the SharedWorker replica (connectBrowser) behaves as a per-tab store for a TanStack
 * Query user; each case runs on both, side by side. The worker's snapshots reach a tab as fresh
 * clones: a view of the same record keeps its data object (the hooks' bridge tells a record it
 * handed over by identity), a new revision is a change even with the same data, and a record the
 * tab no longer hears of is not handed to TanStack as fresh.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import { createSharedFetchStore, SharedFetchProvider, sharedQueryOptions, useSharedFetch, type SharedFetchStore } from "../../src/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { ErrorPane } from "../harness/error-pane.tsx";
import { cluster } from "../harness/replicas.ts";
import { browser, until } from "./browser-sim.ts";

afterEach(cleanup);
type V = { v: number };
const tick = () => act(() => new Promise((r) => setTimeout(r, 20)));
function app(store: SharedFetchStore, client: QueryClient, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

const ERRORS = "http://127.0.0.1:9/api/refetch-error";

async function refetchFails(host: Host, store: SharedFetchStore) {
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const log: string[] = [];
  render(app(store, new QueryClient(), <ErrorPane url={ERRORS} options={{ retry: false, staleTime: 60_000 }} log={log} />));
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("success/1/"));
  host.auto = () => ({ status: 503, body: {} });
  await act(async () => screen.getByTestId("r").click());
  await waitFor(() => expect(host.calls.length).toBe(2));
  await tick();
  await tick();
  await waitFor(() => expect(log).toContain("error/1/503"));
  await tick();
  await tick();
  return screen.getByTestId("a").textContent;
}

describe("this tab's refetch fails: the error shows, the data kept (errors are per replica; invariant 7)", () => {
  it("per-tab store", async () => {
    const c = cluster(1, { settleMs: 0 });
    expect(await refetchFails(c.host, c.stores[0]!)).toBe("error/1/503");
  });
  it("connectBrowser tab", async () => {
    const host = new Host();
    expect(await refetchFails(host, browser(host).tab())).toBe("error/1/503");
  });
});

const SET = "http://127.0.0.1:9/api/sqd";

function SetPane() {
  const q = useSharedFetch<V>(SET, { staleTime: 60_000 });
  return <span data-testid="a">{q.data?.v ?? "none"}</span>;
}

async function setThenClaim(host: Host, ta: SharedFetchStore, tb: SharedFetchStore) {
  let n = 0;
  host.auto = () => ({ status: 200, body: { v: ++n } });
  const client = new QueryClient();
  render(app(ta, client, <SetPane />));
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("1"));
  await tick();
  const { queryKey } = sharedQueryOptions(ta, SET);
  act(() => void client.setQueryData(queryKey, { v: 99 }));
  await tick();
  expect(screen.getByTestId("a").textContent).toBe("99");
  // Another tab refetches; the host holds its answer: a claim appears in this tab, nothing recorded.
  host.auto = undefined;
  const p = tb.refetch({ url: SET });
  const calls = await host.whenCalls(2);
  await until(() => ta.snapshot({ url: SET }).claim !== undefined);
  await tick();
  const during = screen.getByTestId("a").textContent;
  calls[1]!.respond(200, { v: 2 });
  await p;
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("2"));
  return during;
}

describe("setQueryData, then another tab's claim on the key", () => {
  it("per-tab store: the set data stays while the other tab's request runs", async () => {
    const c = cluster(2, { settleMs: 0 });
    expect(await setThenClaim(c.host, c.stores[0]!, c.stores[1]!)).toBe("99");
  });

  it("connectBrowser tab: the set data stays", async () => {
    const host = new Host();
    const b = browser(host);
    expect(await setThenClaim(host, b.tab(), b.tab())).toBe("99");
  });
});

const FQ = "http://127.0.0.1:9/api/fq";

async function fetchAfterNewer(a: SharedFetchStore, other: SharedFetchStore) {
  const client = new QueryClient();
  const items = () => sharedQueryOptions<{ v: number }>(a, FQ, { staleTime: 60_000 });
  expect(await client.fetchQuery(items())).toEqual({ v: 1 });
  client.removeQueries(); // gc'd, or another route's client
  await other.refetch({ url: FQ }); // another tab: v2
  return client.fetchQuery(items());
}

describe("fetchQuery after another tab recorded a newer result", () => {
  it("per-tab store: v2", async () => {
    const host = new Host();
    let n = 0;
    host.auto = () => ({ status: 200, body: { v: ++n } });
    const doc = new Y.Doc();
    const a = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 } as never);
    const other = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 } as never);
    expect(await fetchAfterNewer(a, other)).toEqual({ v: 2 });
    a.destroy();
    other.destroy();
  });

  it("connectBrowser tab: v2 (a record it no longer hears of is not initialData)", async () => {
    const host = new Host();
    let n = 0;
    host.auto = () => ({ status: 200, body: { v: ++n } });
    const b = browser(host);
    const [a, other] = [b.tab(), b.tab()];
    expect(await fetchAfterNewer(a, other)).toEqual({ v: 2 });
  });
});

const req = { url: "http://127.0.0.1:9/api/same-data" };

/** A device on its own doc; everything it writes reaches `target` in one update when `deliver()` is called. */
function device(host: Host, target: Y.Doc) {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(target));
  const held: Uint8Array[] = [];
  doc.on("update", (u: Uint8Array) => held.push(u));
  const store = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 } as never);
  return { store, deliver: () => Y.applyUpdate(target, Y.mergeUpdates(held.splice(0))) };
}

async function sameDataNewRev(
  host: Host,
  tab: SharedFetchStore & { resultInfo(r: unknown): { rev: number } | undefined },
  target: () => Y.Doc,
) {
  host.auto = () => ({ status: 200, body: { v: 1 } });
  let heard = 0;
  tab.subscribe(req, () => heard++);
  await tab.ensure(req);
  await until(() => tab.snapshot(req).status === "success");
  await new Promise((r) => setTimeout(r, 20));
  const d = device(host, target());
  await d.store.refetch(req);
  heard = 0;
  d.deliver();
  await until(() => tab.resultInfo(req)?.rev === 2);
  await new Promise((r) => setTimeout(r, 20));
  d.store.destroy();
  return heard;
}

describe("same data, new revision from another device (dataUpdatedAt is the new result's at)", () => {
  it("per-tab store: the subscriber hears of it", async () => {
    const host = new Host();
    const doc = new Y.Doc();
    const s = createSharedFetchStore({ doc, fetch: host.fetch, settleMs: 0 } as never);
    expect(await sameDataNewRev(host, s as never, () => doc)).toBeGreaterThan(0);
    s.destroy();
  });
  it("connectBrowser tab: the subscriber hears of it", async () => {
    const host = new Host();
    const b = browser(host);
    const t = b.tab();
    expect(await sameDataNewRev(host, t as never, () => internalsOf(b.workerStore()).records.doc as Y.Doc)).toBeGreaterThan(0);
  });
});
