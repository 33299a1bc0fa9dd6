// @vitest-environment jsdom
/**
 * README, "Freshness is judged on the recorded result's age": "For a polled query the poll window
 * also covers its mounts and focuses (no refetch on focus while a poll result is younger than the
 * interval)." Tab A records a result; tab B (its own store and QueryClient, staleTime 0) shows it
 * and its window regains focus. Polled every 10 s, B's focus is met by A's result: no request.
 * The same query unpolled (the control) refetches on that focus, as staleTime 0 says.
 */
import { focusManager, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";
import { pause } from "../harness/two-panes.tsx";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
});

/** Requests sent after tab B, showing tab A's recorded result, regains focus. */
async function requestsAfterFocus(refetchInterval: number | false): Promise<number> {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  await a.ensure({ url: URL_A });
  function Pane() {
    const q = useQuery(sharedQueryOptions<{ n: number }>(b, URL_A, { refetchInterval }));
    return <span data-testid="b">{`${q.data?.n}/${q.fetchStatus}`}</span>;
  }
  render(app(b, <Pane />));
  // Unpolled, the mount refetches the stale result first (staleTime 0): wait for its outcome.
  await waitFor(() => expect(screen.getByTestId("b").textContent).toMatch(/^\d+\/idle$/));
  const before = c.host.calls.length;
  await pause(200);
  act(() => focusManager.setFocused(false));
  act(() => focusManager.setFocused(true));
  await pause(200);
  await waitFor(() => expect(screen.getByTestId("b").textContent).toMatch(/\/idle$/));
  return c.host.calls.length - before;
}

describe("README: a polled query's poll window covers its focuses", () => {
  it("refetchInterval 10 s, staleTime 0: a focus within the interval after another tab's result sends nothing", async () => {
    expect(await requestsAfterFocus(10_000)).toBe(0);
  });

  it("control: unpolled, staleTime 0, the same focus sends one request", async () => {
    expect(await requestsAfterFocus(false)).toBe(1);
  });
});
