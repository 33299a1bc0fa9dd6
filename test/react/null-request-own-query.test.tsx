// @vitest-environment jsdom
/**
 * A null request (a hook disabled until, say, an id is chosen) is that hook's own query, as a
 * disabled useQuery has a key of its own: another pane's null request must not show its
 * initialData, nor the error of its refetch().
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SharedFetchProvider, useProgram, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, useFakeClock } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

function app(store: SharedFetchStoreWithExtras, node: ReactNode) {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

type Seen = { status: string; data: unknown; error: string | undefined };
const seen = (q: { status: string; data: unknown; error: { message: string } | null }): Seen => ({
  status: q.status,
  data: q.data,
  error: q.error?.message,
});

describe("each hook's null request is a query of its own (TanStack: a disabled query's state is its key's alone)", () => {
  // `queryKey: undefined` too ({ queryKey: id ? [...] : undefined }): no key, still the hook's own.
  for (const [how, extra] of [
    ["", {}],
    [", with a queryKey option left undefined", { queryKey: undefined }],
  ] as const)
    it(`a pane's initialData reaches neither another pane's null request nor useProgram(null), as with disabled useQuery${how}`, async () => {
      useFakeClock();
      const c = cluster(1, { settleMs: 0 });
      const log: Record<string, Seen> = {};
      function Tags() {
        log.tags = seen(useSharedFetch<string[]>(null, { ...extra, initialData: [] }));
        return null;
      }
      function User() {
        log.user = seen(useSharedFetch<{ name: string }>(null, extra));
        return null;
      }
      function Program() {
        log.program = seen(useProgram(null, extra));
        return null;
      }
      function PlainTags() {
        log.plainTags = seen(useQuery<string[]>({ queryKey: ["tags", null], queryFn: () => [], enabled: false, initialData: [] }));
        return null;
      }
      function PlainUser() {
        log.plainUser = seen(useQuery<{ name: string }>({ queryKey: ["user", null], queryFn: () => ({ name: "" }), enabled: false }));
        return null;
      }
      // The pane without initialData first: its query is made first, then the other's options bring it data.
      render(
        app(
          c.stores[0]!,
          <>
            <User />
            <Program />
            <Tags />
            <PlainUser />
            <PlainTags />
          </>,
        ),
      );
      await advance(50);
      expect(log.plainUser).toEqual({ status: "pending", data: undefined, error: undefined });
      expect(log.user).toEqual(log.plainUser);
      expect(log.program).toEqual(log.plainUser);
      expect(log.tags).toEqual(log.plainTags);
      expect(log.tags).toEqual({ status: "success", data: [], error: undefined });
      expect(c.host.calls).toHaveLength(0);
    });

  it("refetch() of one null request errs in that pane only; the other null panes keep their state", async () => {
    useFakeClock();
    const c = cluster(1, { settleMs: 0 });
    const log: Record<string, Seen> = {};
    let refetch: (() => Promise<unknown>) | undefined;
    function Picker() {
      const q = useSharedFetch<string[]>(null);
      refetch = q.refetch;
      log.picker = seen(q);
      return null;
    }
    function Tags() {
      log.tags = seen(useSharedFetch<string[]>(null, { initialData: ["a"] }));
      return null;
    }
    function Program() {
      log.program = seen(useProgram(null));
      return null;
    }
    render(
      app(
        c.stores[0]!,
        <>
          <Picker />
          <Tags />
          <Program />
        </>,
      ),
    );
    await advance(50);
    await act(async () => void refetch!().catch(() => {}));
    await advance(50);
    expect(log.picker?.status).toBe("error");
    expect(log.picker?.error).toMatch(/disabled \(its request is null\)/);
    expect(log.tags).toEqual({ status: "success", data: ["a"], error: undefined });
    expect(log.program).toEqual({ status: "pending", data: undefined, error: undefined });
    expect(c.host.calls).toHaveLength(0);
  });
});
