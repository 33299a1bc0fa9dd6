// @vitest-environment jsdom
/**
 * `ensure`, `refetch` and the program calls warn of keys they do not know (a TanStack user's
 * `staleTime`); the options the library hands them itself must never trip it. The hooks,
 * sharedQueryOptions, sharedInfiniteQueryOptions, useProgram, sharedMutationFn and a connectBrowser
 * tab (its worker's calls on the tab's behalf) are used here as an app would, with retries, leases,
 * polls, explicit refetches and invalidation: not one warning.
 */
import { QueryClient, useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import {
  sharedInfiniteQueryOptions,
  sharedMutationFn,
  sharedQueryOptions,
  useProgram,
  useSharedFetch,
  useSharedFetchStore,
  type SharedFetchStoreWithExtras,
} from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { app } from "../harness/render-app.tsx";
import { cluster } from "../harness/replicas.ts";
import { browser } from "../worker/browser-sim.ts";

let warn: MockInstance<typeof console.warn>;
beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  warn.mockRestore();
});

const API = "http://127.0.0.1:9/api";
const MODULE = "https://modules.example.test/main.ts";

/** Answers JSON for the API, a module for MODULE, at once. */
function serve(host: Host): void {
  host.auto = (call) => {
    if (call.url === MODULE) {
      call.respondRaw(200, "export const x = 1;\n", { "content-type": "text/javascript" });
      return undefined;
    }
    return { status: 200, body: { v: host.calls.length, next: null } };
  };
}

function Panes() {
  const store = useSharedFetchStore();
  const a = useSharedFetch<{ v: number }>(`${API}/a`, { retry: 2, staleTime: 50, leaseMs: 4000, refetchInterval: 200 });
  const b = useQuery(sharedQueryOptions(store, `${API}/b`, { retry: 1, retryDelay: 10, staleTime: 0 }));
  const c = useInfiniteQuery(
    sharedInfiniteQueryOptions(store, (page: number) => `${API}/c?page=${page}`, {
      queryKey: ["feed"],
      initialPageParam: 0,
      getNextPageParam: () => undefined,
      retry: 1,
    }),
  );
  const p = useProgram(MODULE, { staleTime: 0, retry: 1 });
  const m = useMutation({ mutationFn: sharedMutationFn(store, () => ({ url: `${API}/m`, method: "POST" }), { retry: 1 }) });
  const all = [a, b, c, p];
  return (
    <>
      <span data-testid="s">{all.map((q) => q.status).join(",") + "," + m.status}</span>
      <button
        data-testid="again"
        onClick={() => {
          for (const q of all) void q.refetch();
          m.mutate();
        }}
      />
    </>
  );
}

async function useEverything(store: SharedFetchStoreWithExtras, client = new QueryClient()) {
  render(app(store, <Panes />, client));
  await waitFor(() => expect(screen.getByTestId("s").textContent).toBe("success,success,success,success,idle"), { timeout: 10_000 });
  await act(async () => screen.getByTestId("again").click());
  await waitFor(() => expect(screen.getByTestId("s").textContent).toBe("success,success,success,success,success"), { timeout: 10_000 });
  await act(() => client.invalidateQueries());
  await act(() => new Promise((r) => setTimeout(r, 300)));
}

const ignored = () => warn.mock.calls.map((args) => String(args[0])).filter((w) => w.includes("ignores"));

describe("the library's own options to ensure/refetch/programs trip no unknown-option warning", () => {
  it("per-tab store: hooks, query options, infinite query, program, mutation, refetch and invalidation", async () => {
    const c = cluster(1, { settleMs: 0 });
    serve(c.host);
    await useEverything(c.stores[0]!);
    expect(ignored()).toEqual([]);
  });

  it("connectBrowser tab: the same, through the worker's session", async () => {
    const host = new Host();
    serve(host);
    await useEverything(browser(host).tab() as unknown as SharedFetchStoreWithExtras);
    expect(ignored()).toEqual([]);
  });
});
