// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { StrictMode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

type Seen = { status: string; data: unknown; claim: string };

function Pane({ name, url, log }: { name: string; url: string | null; log: Seen[] }) {
  const { status, data, claim, refetch } = useSharedFetch<{ n: number }>(url);
  log.push({ status, data, claim: claim ? (claim.mine ? "mine" : "foreign") : "-" });
  return (
    <div>
      <span data-testid={`${name}-status`}>{status}</span>
      <span data-testid={`${name}-data`}>{data ? data.n : "none"}</span>
      <button onClick={() => void refetch()}>refetch {name}</button>
    </div>
  );
}

function mount(store: SharedFetchStoreWithExtras, name: string, log: Seen[], url: string | null = URL_A) {
  const client = new QueryClient();
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>
        <Pane name={name} url={url} log={log} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** Lets the store's microtasks and React's updates run. */
const flush = () => act(async () => {});

afterEach(cleanup);

describe("useSharedFetch: two stores on synced docs rendered side by side", () => {
  it("one request; every render's state in order; never 'not pending, no data' between pending and success", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const logA: Seen[] = [];
    const logB: Seen[] = [];
    render(
      <>
        {mount(a!, "a", logA)}
        {mount(b!, "b", logB)}
      </>,
    );
    await flush();
    expect(c.host.calls).toHaveLength(1);
    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("1"));
    expect(screen.getByTestId("b-data").textContent).toBe("1");
    const dedupe = (log: Seen[]) => log.filter((s, i) => i === 0 || JSON.stringify(s) !== JSON.stringify(log[i - 1]));
    // The store's notice (claim released with the result) may come a microtask before TanStack's
    // result (React 19 renders it, 18 batches it away): then one render is still pending with no
    // claim, which is the truth (this tab's query function runs). It is dropped before comparing.
    const later = (log: Seen[]) => dedupe(log).filter((s, i) => i === 0 || s.status !== "pending" || s.claim !== "-");
    expect(dedupe(later(logA))).toEqual([
      { status: "pending", data: undefined, claim: "-" },
      { status: "pending", data: undefined, claim: "mine" },
      { status: "success", data: { n: 1 }, claim: "-" },
    ]);
    expect(
      dedupe(logB)
        .filter((s) => s.status !== "pending" || s.claim !== "-")
        .slice(0, 1),
    ).toEqual([{ status: "pending", data: undefined, claim: "foreign" }]);
    expect(dedupe(logB).at(-1)).toEqual({ status: "success", data: { n: 1 }, claim: "-" });
    expect(logB.filter((s) => s.status !== "pending" && s.data === undefined)).toEqual([]);
    c.destroy();
  });

  it("a refetch from the other pane keeps the data visible while it runs; a result shown once never flips back to no data", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const logA: Seen[] = [];
    render(
      <>
        {mount(a!, "a", logA)}
        {mount(b!, "b", [])}
      </>,
    );
    await waitFor(() => expect([screen.getByTestId("a-data").textContent, screen.getByTestId("b-data").textContent]).toEqual(["1", "1"]));
    c.host.auto = undefined;
    await act(async () => screen.getByText("refetch b").click());
    await waitFor(() => expect(c.host.calls).toHaveLength(2));
    // TanStack's status stays success (this tab fetches nothing); the claim shows the work elsewhere.
    await waitFor(() => expect(logA.at(-1)).toEqual({ status: "success", data: { n: 1 }, claim: "foreign" }));
    await act(async () => c.host.calls[1]!.respond(200, { n: 2 }));
    // TanStack notifies on a 0 ms timer: wait for the pushed result rather than one microtask.
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("2"));
    const firstData = logA.findIndex((s) => s.data !== undefined);
    expect(logA.slice(firstData).filter((s) => s.data === undefined)).toEqual([]);
    c.destroy();
  });

  it("snapshots keep their identity: unrelated doc writes cause no render", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const logA: Seen[] = [];
    render(mount(a!, "a", logA));
    await flush();
    // TanStack notifies on a 0 ms timer, and the hook re-stamps dataUpdatedAt with the writer's
    // `at` once after the result: let both land before counting.
    await act(() => new Promise((r) => setTimeout(r, 20)));
    const renders = logA.length;
    await act(async () => {
      await b!.ensure({ url: `${URL_A}/other` });
      await b!.refetch({ url: `${URL_A}/other` });
    });
    await flush();
    expect(logA.slice(renders)).toEqual([]);
    c.destroy();
  });

  it("a claim leaves a query alone whose data came from the doc (no data set again): its refetchInterval timer is not restarted", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = (call) => (call.n <= 2 ? { status: 200, body: { n: call.n } } : undefined);
    const clients = [new QueryClient(), new QueryClient()];
    const actions: string[][] = [[], []];
    clients.forEach((client, i) =>
      client.getQueryCache().subscribe((e) => {
        if (e.type === "updated") actions[i]!.push(e.action.type);
      }),
    );
    const pane = (store: SharedFetchStoreWithExtras, client: QueryClient, name: string) => (
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={store}>
          <Pane name={name} url={URL_A} log={[]} />
        </SharedFetchProvider>
      </QueryClientProvider>
    );
    render(
      <>
        {pane(a!, clients[0]!, "a")}
        {pane(b!, clients[1]!, "b")}
      </>,
    );
    await waitFor(() => expect(screen.getByTestId("b-data").textContent).toBe("1"));
    // Revision 2 reaches both panes from the doc, not through their query functions (TanStack
    // keeps its own structurally shared copy of what is set: not the store's object).
    await act(async () => void (await b!.refetch({ url: URL_A })));
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("2"));
    await act(() => new Promise((r) => setTimeout(r, 20)));
    const before = actions.map((list) => list.length);
    // A refetch outside the panes: its claim changes both stores' snapshots; its request hangs.
    void b!.refetch({ url: URL_A }).catch(() => {});
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(c.host.calls).toHaveLength(3);
    expect(b!.snapshot({ url: URL_A }).claim).toBeDefined();
    expect(actions.map((list, i) => list.slice(before[i]))).toEqual([[], []]);
    c.destroy();
  });

  it("unmounting the last component aborts the request on the network and releases the claim", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const view = render(mount(a!, "a", []));
    await flush();
    expect(b!.claims()).toHaveLength(1);
    view.unmount();
    await flush();
    expect(c.host.calls[0]!.signal?.aborted).toBe(true);
    expect(b!.claims()).toHaveLength(0);
    c.destroy();
  });

  it("null disables the request (TanStack's disabled state); a bad URL shows an error naming it instead of throwing", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const idle: Seen[] = [];
    render(mount(a!, "a", idle, null));
    await flush();
    expect(idle.at(-1)).toEqual({ status: "pending", data: undefined, claim: "-" });
    expect(c.host.calls).toHaveLength(0);
    function Bad() {
      const { status, error } = useSharedFetch("ftp://example.test/items");
      return <span data-testid="bad">{`${status}: ${error?.message}`}</span>;
    }
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SharedFetchProvider store={a!}>
          <Bad />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("bad").textContent).toMatch(/^error/));
    expect(screen.getByTestId("bad").textContent).toMatch(/^error: shared-fetch: url "ftp:\/\/example.test\/items" has protocol ftp:/);
    c.destroy();
  });

  it("StrictMode's double mount costs no extra request", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const log: Seen[] = [];
    render(<StrictMode>{mount(a!, "a", log)}</StrictMode>);
    await flush();
    await flush();
    expect(c.host.calls).toHaveLength(1);
    await act(async () => c.host.open[0]!.respond(200, { n: 3 }));
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("3"));
    c.destroy();
  });

  it("without a provider the hook says how to fix it", () => {
    function Lonely() {
      useSharedFetch(URL_A);
      return null;
    }
    expect(() =>
      render(
        <QueryClientProvider client={new QueryClient()}>
          <Lonely />
        </QueryClientProvider>,
      ),
    ).toThrow(/use <SharedFetchProvider/);
  });
});
