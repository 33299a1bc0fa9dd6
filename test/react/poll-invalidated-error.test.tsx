// @vitest-environment jsdom
/**
 * README, "Errors are per replica": a poll keeps its window whatever the last outcome, so a tab
 * polling a failing host beside another tab takes that tab's failure of less than an interval ago
 * as its tick's answer (one request per interval for all). An invalidation is not an outcome:
 * `invalidateQueries({ refetchType: "none" })` marks the query for its next fetch, and a plain
 * useQuery's next tick fetches. A query with no data that failed is already marked invalidated by
 * its error, and TanStack does not dispatch the invalidation again: the shared query's next tick
 * kept its poll window and sent nothing. Tabs A and B on linked real Yjs docs, B with a plain
 * useQuery beside its shared one, fake timers.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, expect, it, vi } from "vitest";
import { useSharedFetch } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const PLAIN = "https://api.example.test/plain";
const options = { refetchInterval: 10_000, retry: false } as const;

/** Tab A polls from 0 s, tab B from 3 s (a shared and a plain useQuery in clientB), the host failing each request. */
function pollingTabs() {
  const c = cluster(0, { settleMs: 0 });
  const a = c.join({ fetch: c.host.fetchAs("a") });
  const b = c.join({ fetch: c.host.fetchAs("b") });
  const sent: { from: string | undefined; url: string; at: number }[] = [];
  c.host.auto = (call) => (sent.push({ from: call.from, url: call.url, at: Date.now() }), { status: 500, body: "down" });
  const plainFetch = c.host.fetchAs("b-plain");
  const shown: Record<string, string> = {};
  function Shared({ name }: { name: string }) {
    shown[name] = useSharedFetch(URL_A, options).status;
    return null;
  }
  function Plain() {
    const queryFn = async () => {
      const res = await plainFetch(PLAIN);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.json();
    };
    shown["plain"] = useQuery({ queryKey: ["plain"], queryFn, ...options }).status;
    return null;
  }
  const clientA = new QueryClient();
  const clientB = new QueryClient();
  const by = (from: string, after: number) => sent.filter((s) => s.from === from && s.at > after).length;
  const mount = async () => {
    render(app(a, <Shared name="a" />, clientA));
    await advance(3_000);
    render(
      app(
        b,
        <>
          <Shared name="b" />
          <Plain />
        </>,
        clientB,
      ),
    );
  };
  return { clientA, clientB, shown, by, mount };
}

it("tab B failed with no data; after its invalidateQueries({ refetchType: \"none\" }) its next poll tick asks the host past tab A's young error, as plain useQuery's tick does", async () => {
  useFakeClock();
  const { clientB, shown, by, mount } = pollingTabs();
  await mount();
  await advance(12_000);
  expect(shown).toEqual({ a: "error", b: "error", plain: "error" });
  // The poll window: B's mount and tick took A's failures of 3 s before them; the plain query fetched at both.
  expect({ b: by("b", 0), plain: by("b-plain", 0) }).toEqual({ b: 0, plain: 2 });

  const invalidatedAt = Date.now();
  await act(() => clientB.invalidateQueries({ refetchType: "none" }));
  // Past B's next tick (each pane's interval restarts as its query changes: at most 10 s on).
  await advance(10_000);
  expect({ b: by("b", invalidatedAt), plain: by("b-plain", invalidatedAt) }).toEqual({ b: 1, plain: 1 });
  // One ask past the error, then the poll's window again: one request per interval between the tabs.
  const asked = Date.now();
  await advance(30_000);
  expect(by("a", asked) + by("b", asked)).toBe(3);
});

it("an invalidation resetQueries has answered since is not taken up again by a later error of the same count: tab B's poll tick after the reset keeps its window", async () => {
  useFakeClock();
  const { clientA, clientB, shown, by, mount } = pollingTabs();
  await mount();
  await advance(2_000);
  // B's shared query has failed once (its mount took A's error); the app invalidates it, then resets it.
  await act(() => clientB.invalidateQueries({ refetchType: "none" }));
  await advance(1_000);
  const resetAt = Date.now();
  await act(() => clientB.resetQueries());
  await advance(0);
  // The reset refetched both of B's queries, each failed once since (B's shared one at its count
  // of the invalidation again): the invalidation is answered.
  expect({ b: by("b", resetAt - 1), plain: by("b-plain", resetAt - 1), shown }).toEqual({
    b: 1,
    plain: 1,
    shown: { a: "error", b: "error", plain: "error" },
  });
  // A's refetch 2 s later fails too; B's next tick (10 s after the reset) takes that young failure
  // as its answer, where the plain query's tick fetches.
  await advance(2_000);
  await act(() => clientA.refetchQueries());
  await advance(8_000);
  expect({ b: by("b", resetAt), plain: by("b-plain", resetAt) }).toEqual({ b: 0, plain: 1 });
  // One request per interval between the tabs.
  const after = Date.now();
  await advance(30_000);
  expect(by("a", after) + by("b", after)).toBe(3);
});
