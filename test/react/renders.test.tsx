// @vitest-environment jsdom
/**
 * The hooks render for what a pane can see — TanStack's result, the claim, the recorded data — and
 * not for the rest of the store's snapshot: a pane booting among other tabs pays no render for its
 * own ask (idle → pending) while its claim waits for the browser's locks, nor for the recorded
 * result its own query function is about to hand to TanStack (TanStack's update renders it).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
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

function mount(store: SharedFetchStoreWithExtras, name: string, log: Seen[]) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <Pane name={name} log={log} />
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
});
