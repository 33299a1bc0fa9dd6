// @vitest-environment jsdom
/**
 * A fetch TanStack starts while offline waits, paused, and runs its query function once back
 * online. TanStack decided to fetch when it started (the data was stale by the staleTime then):
 * a staleTime raised meanwhile does not call it off, and a plain useQuery sends its request. The
 * shared query judged the recorded result by the staleTime of the moment its function ran, took
 * it for fresh and sent nothing. Found by test/react/parity-random.test.tsx.
 */
import { onlineManager, QueryClient, useQuery } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import { Fragment, useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useSharedFetch } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  onlineManager.setOnline(true);
  vi.useRealTimers();
});

describe("a fetch paused offline runs as TanStack decided it when it started (TanStack's staleTime at the fetch)", () => {
  it("a remount while offline, the staleTime then raised: back online, the shared query sends its request as plain useQuery does", async () => {
    useFakeClock();
    const c = cluster(1, { settleMs: 0 });
    const counts = new Map<string, number>();
    c.host.auto = (call) => {
      counts.set(call.url, (counts.get(call.url) ?? 0) + 1);
      return { status: 200, body: { n: counts.get(call.url) } };
    };
    const shown: Record<string, number | undefined> = {};
    let set: (v: { gen: number; staleTime: number }) => void = () => {};
    function Panes() {
      const [state, setState] = useState({ gen: 0, staleTime: 0 });
      set = setState;
      return (
        <Fragment key={state.gen}>
          <Shared staleTime={state.staleTime} />
          <Plain staleTime={state.staleTime} />
        </Fragment>
      );
    }
    function Shared({ staleTime }: { staleTime: number }) {
      shown.shared = useSharedFetch<{ n: number }>("https://api.example.test/s", { staleTime, retry: false }).data?.n;
      return null;
    }
    function Plain({ staleTime }: { staleTime: number }) {
      const queryFn = async () => (await (await c.host.fetch("https://api.example.test/p")).json()) as { n: number };
      shown.plain = useQuery({ queryKey: ["plain"], queryFn, staleTime, retry: false }).data?.n;
      return null;
    }
    render(app(c.stores[0]!, <Panes />, new QueryClient()));
    await advance(100);
    expect(shown).toEqual({ shared: 1, plain: 1 });
    onlineManager.setOnline(false);
    await advance(0);
    set({ gen: 1, staleTime: 0 });
    await advance(100);
    set({ gen: 1, staleTime: Infinity });
    await advance(100);
    onlineManager.setOnline(true);
    await advance(100);
    expect(shown).toEqual({ shared: 2, plain: 2 });
    expect(counts).toEqual(
      new Map([
        ["https://api.example.test/s", 2],
        ["https://api.example.test/p", 2],
      ]),
    );
  });
});
