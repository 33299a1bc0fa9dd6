// @vitest-environment jsdom
/**
 * Two QueryClients on one store (two panes of one tab, each with its own client): a pane must not
 * take the other pane's query function for its own. While one runs, the other pane's view waits
 * for a delivery that never comes to it, and keeps showing a claim that has ended.
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { useSharedFetch } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

it("pane A's refetch answered with unchanged data: pane B (another QueryClient, same store) shows no claim and nothing fetching afterwards", async () => {
  useFakeClock();
  const c = cluster(1, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 }, delayMs: 50 });
  let refetchA = () => {};
  function Pane({ name }: { name: string }) {
    const q = useSharedFetch<{ n: number }>(URL_A, { staleTime: 60_000 });
    if (name === "a") refetchA = () => void q.refetch();
    return <span data-testid={name}>{`${q.data?.n ?? "-"} ${q.claim ? "claim" : "-"} ${q.isFetchingAnywhere}`}</span>;
  }
  render(
    <>
      {app(c.stores[0]!, <Pane name="a" />)}
      {app(c.stores[0]!, <Pane name="b" />)}
    </>,
  );
  await advance(200);
  expect(c.host.calls).toHaveLength(1);
  act(() => refetchA());
  await advance(20);
  expect(screen.getByTestId("b").textContent).toBe("1 claim true");
  await advance(200);
  expect(c.host.calls).toHaveLength(2);
  expect(screen.getByTestId("a").textContent).toBe("1 - false");
  expect(screen.getByTestId("b").textContent).toBe("1 - false");
});
