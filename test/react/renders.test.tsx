// @vitest-environment jsdom
/**
 * The hooks render for what a pane can see — TanStack's result, the claim, the recorded data — and
 * not for the rest of the store's snapshot: a pane booting among other tabs pays no render for its
 * own ask (idle → pending) while its claim waits for the browser's locks, nor for the recorded
 * result its own query function is about to hand to TanStack (TanStack's update renders it). The
 * claim renders a pane only once it reads it (`claim`, `isFetchingAnywhere`), as TanStack renders
 * for the result properties a component reads, or with `notifyOnChangeProps: "all"`.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

type Seen = { status: string; data: unknown; claim: string };

function Pane({ name, log }: { name: string; log: Seen[] }) {
  const { status, data, claim } = useSharedFetch<{ n: number }>(URL_A);
  log.push({ status, data, claim: claim ? (claim.mine ? "mine" : "foreign") : "-" });
  return <span data-testid={`${name}-data`}>{data ? data.n : "none"}</span>;
}

/** A pane that shows the data only: it never reads `claim` or `isFetchingAnywhere`. */
function DataPane({ name, log }: { name: string; log: Seen[] }) {
  const { status, data } = useSharedFetch<{ n: number }>(URL_A);
  log.push({ status, data, claim: "unread" });
  return <span data-testid={`${name}-data`}>{data ? data.n : "none"}</span>;
}

/** The same, asking TanStack to render for every change of the result (`notifyOnChangeProps: "all"`). */
function AllPane({ name, log }: { name: string; log: Seen[] }) {
  const { status, data } = useSharedFetch<{ n: number }>(URL_A, { notifyOnChangeProps: "all" });
  log.push({ status, data, claim: "unread" });
  return <span data-testid={`${name}-data`}>{data ? data.n : "none"}</span>;
}

function mount(
  store: SharedFetchStoreWithExtras,
  name: string,
  log: Seen[],
  View: (props: { name: string; log: Seen[] }) => ReactNode = Pane,
) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <View name={name} log={log} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

/** Web Locks whose grants wait for `grant()`: a browser still busy booting the page. */
function gatedLocks(): { locks: LockManagerLike; grant: () => void } {
  const held: (() => void)[] = [];
  const locks: LockManagerLike = {
    request: (_name, options, callback) =>
      new Promise((resolve, reject) => {
        options.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        held.push(() => void Promise.resolve(callback({})).then(resolve, reject));
      }),
  };
  return { locks, grant: () => held.splice(0).forEach((f) => f()) };
}

const settle = () => act(() => new Promise((r) => setTimeout(r, 20)));

afterEach(cleanup);

describe("useSharedFetch renders what the pane can see", () => {
  it("the claimant: no render for its own ask while the claim waits for the locks; one for the claim, one for the result", async () => {
    const { locks, grant } = gatedLocks();
    const c = cluster(0);
    const a = c.join({ locks, browserId: "browser-1", settleMs: 0 });
    const req = { url: URL_A };
    const log: Seen[] = [];
    render(mount(a, "a", log));
    await waitFor(() => expect(a.snapshot(req).status).toBe("pending")); // the query function asked
    await settle();
    expect(a.snapshot(req).claim).toBeUndefined(); // its claim waits for the replica lock
    expect(log).toEqual([{ status: "pending", claim: "-" }]);
    await act(async () => grant());
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    await settle();
    expect(log).toEqual([
      { status: "pending", claim: "-" },
      { status: "pending", claim: "mine" },
    ]);
    await act(async () => c.host.calls[0]!.respond(200, { n: 1 }));
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("1"));
    await settle();
    expect(log).toEqual([
      { status: "pending", claim: "-" },
      { status: "pending", claim: "mine" },
      { status: "success", data: { n: 1 }, claim: "-" },
    ]);
  });

  it("a follower: one render for the other replica's claim, one for the result it recorded", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const req = { url: URL_A };
    void a.ensure(req);
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    const log: Seen[] = [];
    render(mount(b, "b", log));
    await waitFor(() => expect(b.snapshot(req).status).toBe("pending"));
    await settle();
    expect(log.map((s) => s.claim)).toEqual(["foreign"]);
    await act(async () => c.host.calls[0]!.respond(200, { n: 2 }));
    await waitFor(() => expect(screen.getByTestId("b-data").textContent).toBe("2"));
    await settle();
    expect(log).toEqual([
      { status: "pending", claim: "foreign" },
      { status: "success", data: { n: 2 }, claim: "-" },
    ]);
    expect(c.host.calls).toHaveLength(1);
  });

  it("a pane that never reads the claim is not rendered for it (tracked, as TanStack's result properties): the claimant and a follower render pending, then the data", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const req = { url: URL_A };
    const logA: Seen[] = [];
    const logB: Seen[] = [];
    render(mount(a, "a", logA, DataPane));
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    await waitFor(() => expect(b.snapshot(req).claim).toBeDefined()); // b's doc has a's claim
    render(mount(b, "b", logB, DataPane));
    await settle();
    expect(a.snapshot(req).claim?.mine).toBe(true);
    expect(logA).toEqual([{ status: "pending", claim: "unread" }]);
    expect(logB).toEqual([{ status: "pending", claim: "unread" }]);
    await act(async () => c.host.calls[0]!.respond(200, { n: 3 }));
    await waitFor(() => expect(screen.getByTestId("b-data").textContent).toBe("3"));
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("3"));
    await settle();
    const twice = [
      { status: "pending", claim: "unread" },
      { status: "success", data: { n: 3 }, claim: "unread" },
    ];
    expect(logA).toEqual(twice);
    expect(logB).toEqual(twice);
  });

  it("the claim read outside a render is the current one, and from then on a claim alone renders the pane", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const req = { url: URL_A };
    const views: { claim: unknown; isFetchingAnywhere: boolean }[] = [];
    let renders = 0;
    function Quiet() {
      views.push(useSharedFetch<{ n: number }>(URL_A));
      renders++;
      return null;
    }
    a.ensure(req).catch(() => {});
    await waitFor(() => expect(b.snapshot(req).claim).toBeDefined());
    render(mount(b, "b", [], Quiet));
    await settle();
    // Read after the render, not in it: the claim standing now.
    expect((views.at(-1)!.claim as { mine: boolean } | undefined)?.mine).toBe(false);
    expect(views.at(-1)!.isFetchingAnywhere).toBe(true);
    await act(async () => c.host.calls[0]!.respond(200, { n: 4 }));
    await waitFor(() => expect(b.snapshot(req).claim).toBeUndefined());
    await settle();
    const before = renders;
    expect(views.at(-1)!.claim).toBeUndefined();
    // Read once, so a claim alone (no new data yet) renders the pane from now on.
    a.refetch(req).catch(() => {});
    await waitFor(() => expect(renders).toBeGreaterThan(before));
    expect((views.at(-1)!.claim as { mine: boolean } | undefined)?.mine).toBe(false);
    expect(c.host.calls).toHaveLength(2);
  });

  it('notifyOnChangeProps: "all" renders the pane for the claim too, read or not', async () => {
    const c = cluster(1, { settleMs: 0 });
    const a = c.stores[0] as SharedFetchStoreWithExtras;
    const log: Seen[] = [];
    render(mount(a, "a", log, AllPane));
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    await settle();
    expect(a.snapshot({ url: URL_A }).claim?.mine).toBe(true);
    expect(log.length).toBeGreaterThanOrEqual(2); // the mount, then the claim
    expect(log.every((s) => s.status === "pending")).toBe(true);
    await act(async () => c.host.calls[0]!.respond(200, { n: 5 }));
    await waitFor(() => expect(screen.getByTestId("a-data").textContent).toBe("5"));
  });
});
