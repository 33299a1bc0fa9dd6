// @vitest-environment jsdom
/**
 * Invariant 11 and TanStack's explicit refetch in SharedWorker mode: tab A's refresh hangs, tab B
 * joined it, and A's mutation invalidates the list (onSuccess). TanStack cancels A's fetch and asks
 * past it; the request B joined may predate the mutation. Per-tab replicas send the new request at
 * once (the claimant aborts its own request whatever other replicas joined: they are answered by
 * the newer one); the worker's store, where B's ask is a waiter of its own, queued the new request
 * behind the hung one, and neither tab ever showed the list after the mutation.
 */
import { QueryClient, QueryClientProvider, useMutation, useQueryClient } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { SharedFetchProvider, sharedMutationFn, useSharedFetch, useSharedFetchStore, type SharedFetchStore } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

afterEach(cleanup);
const API = "http://127.0.0.1:9/api/refetch-past-joined";
const text = (id: string) => screen.getByTestId(id).textContent;

function Shown({ id }: { id: string }) {
  const q = useSharedFetch<{ n: number }>(API, { staleTime: 60_000 });
  return <span data-testid={id}>{q.data?.n ?? "-"}</span>;
}

function Editor() {
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: sharedMutationFn(useSharedFetchStore(), () => ({ url: `${API}/add`, method: "POST", body: "{}" })),
    onSuccess: () => client.invalidateQueries({ queryKey: ["shared-fetch", "GET", API] }),
  });
  return <button onClick={() => add.mutate()}>add</button>;
}

const tab = (store: SharedFetchStore, client: QueryClient, node: ReactNode) => (
  <QueryClientProvider client={client}>
    <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
  </QueryClientProvider>
);

it("invariant 11: a mutation's invalidation in tab A while A's refresh hangs and tab B joined it sends the new request at once; both tabs show its list", async () => {
  const host = new Host();
  const b = browser(host);
  const [ta, tb] = [b.tab(), b.tab()];
  let list = 1;
  const answer = () => (call: { method: string }) =>
    call.method === "POST" ? (list++, { status: 201, body: { ok: true } }) : { status: 200, body: { n: list } };
  host.auto = answer();
  const clientA = new QueryClient();
  render(
    <>
      {tab(ta, clientA, [<Shown key="s" id="a" />, <Editor key="e" />])}
      {tab(tb, new QueryClient(), <Shown id="b" />)}
    </>,
  );
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["1", "1"]));
  host.auto = undefined; // A's refresh hangs; B's focus joins it
  void clientA.refetchQueries({ queryKey: ["shared-fetch", "GET", API] });
  await act(() => host.whenCalls(2));
  const joined = tb.ensure({ url: API }, { maxAgeMs: 0 });
  await act(() => new Promise((r) => setTimeout(r, 20)));
  host.auto = answer();
  fireEvent.click(screen.getByText("add"));
  await waitFor(() => expect([text("a"), text("b")]).toEqual(["2", "2"]));
  await expect(joined).resolves.toMatchObject({ status: "success", data: { n: 2 } });
  expect(host.calls.map((call) => `${call.method} ${call.state}`)).toEqual([
    "GET answered",
    "GET aborted",
    "POST answered",
    "GET answered",
  ]);
});
