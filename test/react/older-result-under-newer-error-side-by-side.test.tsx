// @vitest-environment jsdom
/**
 * Invariant 7 (an error never erases a result) as TanStack shows it, with useQuery and
 * useSharedFetch side by side on one key: device A's revision-1 request still runs, B's panes
 * joined to it, when B, cut off from A, refetches past it (revision 2, sent after A's) and that
 * request fails, which the panes show. Healed, A's data lands below B's newer error: the store
 * shows it as the data with status "error" (the refetch sent after it failed). B's panes turned to
 * "success" as that data came in, their `error` gone, where TanStack keeps `status: "error"` and
 * the previous data when a refetch fails. They now keep the error beside the data, dated by the
 * store's `at`, until a later success clears it.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { sharedQueryOptions, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { background, cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const req = { url: URL_A };
const LEASE = 300;
type Shown = { status: string; fetchStatus: string; data: unknown; error: number | undefined; at: number; errorAt: number };

/** Tab B's panes, useQuery (with select) and useSharedFetch on one key, and what each showed. */
function panes(b: SharedFetchStoreWithExtras) {
  const viaQuery: Shown[] = [];
  const viaHook: Shown[] = [];
  const hook = { refetch: () => {} };
  function QueryPane() {
    const q = useQuery({ ...sharedQueryOptions<{ from: string }>(b, URL_A), select: (d) => d.from });
    viaQuery.push({
      status: q.status,
      fetchStatus: q.fetchStatus,
      data: q.data,
      error: q.error?.status,
      at: q.dataUpdatedAt,
      errorAt: q.errorUpdatedAt,
    });
    return null;
  }
  function HookPane() {
    const q = useSharedFetch<{ from: string }>(URL_A);
    hook.refetch = () => void q.refetch();
    viaHook.push({
      status: q.status,
      fetchStatus: q.fetchStatus,
      data: q.data?.from,
      error: q.error?.status,
      at: q.dataUpdatedAt,
      errorAt: q.errorUpdatedAt,
    });
    return null;
  }
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const mount = () =>
    render(
      app(
        b,
        <>
          <QueryPane />
          <HookPane />
        </>,
        client,
      ),
    );
  return { shown: [viaQuery, viaHook], hook, mount };
}

it("an older result landing under a newer error: useQuery (with select) and useSharedFetch show status error, the data and the error, as the store does; a later success clears the error", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 20, leaseMs: LEASE, locks: null });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  c.host.auto = () => undefined;
  a.subscribe(req, () => {}); // A shows the key: its request lives on once its ask is answered
  background(a.ensure(req));
  await advance(50);
  const { shown, hook, mount } = panes(b);
  mount(); // B's panes join A's request
  await advance(50);
  c.net.isolate(c.docOf(b));
  background(b.refetch(req, { skipInFlight: true })); // past A's revision 1: B takes over at 2 once A is silent
  await advance(LEASE + 50);
  expect(c.host.calls).toHaveLength(2);
  await act(async () => c.host.calls[1]!.respond(500, "no"));
  await advance(10);
  c.net.heal();
  await advance(10);
  expect(c.host.calls[0]!.state).toBe("in-flight");
  expect(b.snapshot(req)).toMatchObject({ status: "pending", error: { status: 500 }, claim: { replicaId: a.replicaId } });
  for (const pane of shown) expect(pane.at(-1)).toMatchObject({ status: "error", error: 500, data: undefined });
  const errorAt = shown[0]!.at(-1)!.errorAt;

  await act(async () => c.host.calls[0]!.respond(200, { from: "a" }));
  await advance(10);
  expect(b.snapshot(req)).toMatchObject({ status: "error", data: { from: "a" }, error: { status: 500 } });
  const at = b.resultInfo(req)!.at!;
  for (const pane of shown) {
    // The data dated by its writer's `at` (as trusted here), the error by when this query got it, as TanStack dates it.
    expect(pane.at(-1)).toEqual({ status: "error", fetchStatus: "idle", data: "a", error: 500, at, errorAt });
    // Never "success" once that error showed.
    expect(pane.slice(pane.findIndex((s) => s.error === 500)).map((s) => s.status)).not.toContain("success");
  }

  act(() => hook.refetch());
  await advance(50);
  expect(c.host.calls).toHaveLength(3);
  await act(async () => c.host.calls[2]!.respond(200, { from: "b" }));
  await advance(10);
  expect(b.snapshot(req)).toMatchObject({ status: "success", data: { from: "b" } });
  for (const pane of shown) expect(pane.at(-1)).toMatchObject({ status: "success", data: "b", error: undefined });
});
