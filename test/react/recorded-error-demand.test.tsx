// @vitest-environment jsdom
/**
 * README, "Errors are per replica": another replica's failed request is not this tab's answer. A
 * freshness demand (mount, focus) that finds an error as the latest recorded outcome asks again
 * (joining a request in flight), as TanStack's error state is always stale; only a poll keeps its
 * window whatever the last outcome.
 */
import { focusManager } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { Suspense } from "react";
import { afterEach, expect, it, vi } from "vitest";
import { useSharedFetch, useSharedFetchSuspense } from "../../src/index.ts";
import { Boundary } from "../harness/boundary.tsx";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  focusManager.setFocused(undefined);
});
type Item = { n: number };

it("tab A shows data; tab B's refetch failed 5 s ago and B closed; A's focus (data stale) asks the host again instead of taking B's error", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 0 });
  let fail = false;
  c.host.auto = (call) => (fail ? { status: 500, body: "down" } : { status: 200, body: { n: call.n } });
  const options = { staleTime: 30_000, retry: false } as const;
  function A() {
    const q = useSharedFetch<Item>(URL_A, options);
    return <span data-testid="a">{`${q.status} ${q.data?.n ?? "-"}`}</span>;
  }
  render(app(c.stores[0]!, <A />));
  await advance(100);
  expect(screen.getByTestId("a").textContent).toBe("success 1");
  await advance(28_000);
  fail = true;
  await act(() => c.stores[1]!.refetch({ url: URL_A }));
  expect(c.host.calls).toHaveLength(2);
  await advance(5_000);
  fail = false;
  act(() => focusManager.setFocused(false));
  act(() => focusManager.setFocused(true));
  await advance(100);
  expect(c.host.calls).toHaveLength(3);
  expect(screen.getByTestId("a").textContent).toBe("success 3");
});

it("tab B's request failed and B's retry is in flight; tab A mounts with useSharedFetchSuspense: A waits for that retry, it does not throw B's past error to its boundary", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => (call.n === 1 ? { status: 500, body: "down" } : undefined);
  await act(() => c.stores[1]!.ensure({ url: URL_A }));
  void c.stores[1]!.refetch({ url: URL_A }).catch(() => {});
  await advance(10);
  expect(c.host.open).toHaveLength(1);
  function A() {
    const q = useSharedFetchSuspense<Item>(URL_A, { staleTime: 60_000, retry: false });
    return <span data-testid="a">{q.data.n}</span>;
  }
  render(
    app(
      c.stores[0]!,
      <Boundary show={() => <span data-testid="a">caught</span>}>
        <Suspense fallback={<span data-testid="a">waiting</span>}>
          <A />
        </Suspense>
      </Boundary>,
    ),
  );
  await advance(100);
  expect(screen.getByTestId("a").textContent).toBe("waiting");
  c.host.open[0]!.respond(200, { n: 2 });
  await advance(100);
  expect(screen.getByTestId("a").textContent).toBe("2");
  expect(c.host.calls).toHaveLength(2);
});

it("a poll keeps its window whatever the last outcome: tabs A and B polling every 10 s against a failing host send one request per interval between them, not one each", async () => {
  useFakeClock();
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => ({ status: 500, body: "down" });
  const options = { refetchInterval: 10_000, retry: false } as const;
  function Pane({ name }: { name: string }) {
    const q = useSharedFetch<Item>(URL_A, options);
    return <span data-testid={name}>{q.status}</span>;
  }
  render(app(c.stores[0]!, <Pane name="a" />));
  await advance(3_000);
  render(app(c.stores[1]!, <Pane name="b" />));
  await advance(100);
  expect(screen.getByTestId("a").textContent).toBe("error");
  const before = c.host.calls.length;
  // Five intervals: each tab's tick finds the other's failure of less than an interval ago.
  await advance(50_000);
  expect(c.host.calls.length - before).toBe(5);
});
