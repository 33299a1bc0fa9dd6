// @vitest-environment jsdom
/**
 * A SharedWorker tab forgets the view of a key it let go once KEPT_UNHELD other keys were let go
 * after it (tab-memory-bounded). Shown again, the worker's answer is a fresh clone of the record:
 * the hooks must take it for the record the query already holds, as a per-tab tab does (the data
 * object of the same record), not as news set over what the query shows. Each case runs on a
 * per-tab store and on a connectBrowser tab, side by side.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedQueryOptions, useProgram, type SharedFetchStore } from "../../src/index.ts";
import { KEPT_UNHELD } from "../../src/worker/remote-views.ts";
import type { BrowserStore } from "../../src/worker/connect-browser.ts";
import { ErrorPane } from "../harness/error-pane.tsx";
import { cluster } from "../harness/replicas.ts";
import { browser, until } from "./browser-sim.ts";

afterEach(cleanup);
const tick = () => act(() => new Promise((r) => setTimeout(r, 20)));
const API = "http://127.0.0.1:9/api/dropped-remount";

/** Shows KEPT_UNHELD + 1 other keys one after another in a worker tab: its view of `API` is forgotten. */
async function letGoOthers(store: SharedFetchStore): Promise<void> {
  const t = store as BrowserStore & { hears?: (key: string) => boolean };
  if (!t.hears) return;
  for (let i = 0; i <= KEPT_UNHELD; i++) {
    const req = { url: `http://127.0.0.1:9/api/other/${i}` };
    const off = t.subscribe(req, () => {});
    await until(() => t.hears!(t.keyOf(req)));
    off();
  }
}

function app(store: SharedFetchStore, client: QueryClient, on: boolean): ReactNode {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        {on ? <ErrorPane url={API} options={{ retry: false, refetchOnMount: false }} /> : <span data-testid="a">off</span>}
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** The pane's refetch fails (its data kept beside the error), it unmounts, other keys come and go, it mounts again with no refetch. */
async function errorShownAgain(host: Host, store: SharedFetchStore): Promise<string | null> {
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const client = new QueryClient();
  const view = render(app(store, client, true));
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("success/1/"));
  host.auto = () => ({ status: 503, body: {} });
  await act(async () => screen.getByTestId("r").click());
  await waitFor(() => expect(screen.getByTestId("a").textContent).toBe("error/1/503"));
  view.rerender(app(store, client, false));
  await tick();
  await letGoOthers(store);
  view.rerender(app(store, client, true));
  const t = store as BrowserStore & { hears?: (key: string) => boolean };
  if (t.hears) await until(() => t.hears!(t.keyOf({ url: API })));
  await tick();
  await tick();
  return screen.getByTestId("a").textContent;
}

describe("a query showing an error over its data, shown again after the tab forgot the key: the error stays", () => {
  it("per-tab store", async () => {
    const c = cluster(1, { settleMs: 0 });
    expect(await errorShownAgain(c.host, c.stores[0]!)).toBe("error/1/503");
  });
  it("connectBrowser tab", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { v: 0 } });
    expect(await errorShownAgain(host, browser(host).tab())).toBe("error/1/503");
  });
});

const OTHER = "http://127.0.0.1:9/api/dropped-then-other-tab";

function Shown({ store }: { store: SharedFetchStore }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, OTHER, { retry: false, staleTime: 60_000 }));
  return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
}

const PROGRAM = "http://127.0.0.1:9/app/dropped-then-other-tab.ts";

/** A program in place of the query: its module answers `export const n = 2;`. */
function Code() {
  const q = useProgram(PROGRAM, { retry: false, staleTime: 60_000 });
  return <span data-testid="b">{q.data ? (q.data.files[0]!.contents.match(/\d/)?.[0] ?? "?") : q.status}</span>;
}

function pane(store: SharedFetchStore, client: QueryClient, on: boolean, program = false): ReactNode {
  const view = program ? <Code /> : <Shown store={store} />;
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{on ? view : <span data-testid="b">off</span>}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** B's query ends in an error and unmounts; B lets other keys go; A fetches the data; B's query mounts again. */
async function errorThenOtherTab(host: Host, a: SharedFetchStore, b: SharedFetchStore, program = false): Promise<number> {
  host.auto = () => ({ status: 500, body: {} });
  const client = new QueryClient();
  const view = render(pane(b, client, true, program));
  // A first program resolution imports the resolver on demand, in the worker: past waitFor's second under load.
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("error"), { timeout: 10_000 });
  view.rerender(pane(b, client, false, program));
  await tick();
  host.auto = () => (program ? { status: 200, text: "export const n = 2;\n" } : { status: 200, body: { n: 2 } });
  await letGoOthers(b);
  const before = host.calls.length;
  await (program ? (a as BrowserStore).refetchProgram({ url: PROGRAM }) : a.refetch({ url: OTHER }));
  view.rerender(pane(b, client, true, program));
  await waitFor(() => expect(screen.getByTestId("b").textContent).toBe("2"));
  await tick();
  await tick();
  return host.calls.length - before;
}

describe("a query in error shown again after the tab forgot its key, another tab's result recorded since: that result answers it, no request", () => {
  it("per-tab store", async () => {
    const c = cluster(2, { settleMs: 0 });
    expect(await errorThenOtherTab(c.host, c.stores[0]!, c.stores[1]!)).toBe(1);
  });
  it("connectBrowser tab", async () => {
    const host = new Host();
    const b = browser(host);
    expect(await errorThenOtherTab(host, b.tab(), b.tab())).toBe(1);
  });
  it("connectBrowser tab, a program", async () => {
    const host = new Host();
    const b = browser(host);
    expect(await errorThenOtherTab(host, b.tab(), b.tab(), true)).toBe(1);
  });
});
