// @vitest-environment jsdom
/**
 * `gcTime: 0` in tab B while tab A's request is in flight: B's query leaves the cache when its pane
 * unmounts, A's request goes on (B's store no longer waits, A still does), a remount meanwhile joins
 * it, and a remount after A's result arrived (no observer in B then) shows it: one request in all.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";
import { pause, text } from "../harness/two-panes.tsx";

afterEach(cleanup);

function Shown({ store, name }: { store: SharedFetchStoreWithExtras; name: string }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_A, { gcTime: 0, staleTime: 60_000 }));
  return <span data-testid={name}>{q.data ? String(q.data.n) : q.status}</span>;
}

describe("gcTime: 0 across tabs", () => {
  it("B unmounts and remounts around A's request in flight, then after its result: one request, B shows it", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = () => undefined;
    const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const clientA = new QueryClient();
    const clientB = new QueryClient();
    const tree = (on: boolean) => (
      <>
        {app(a, <Shown store={a} name="a" />, clientA)}
        {app(b, on ? <Shown store={b} name="b" /> : <span data-testid="b">off</span>, clientB)}
      </>
    );
    const { rerender } = render(tree(true));
    const show = (on: boolean) => rerender(tree(on));
    await waitFor(() => expect(c.host.calls).toHaveLength(1));
    show(false);
    await pause(50);
    expect(clientB.getQueryCache().getAll()).toHaveLength(0);
    expect(c.host.calls[0]!.signal?.aborted).toBe(false);
    show(true);
    await pause(50);
    expect(text("b")).toBe("pending");
    show(false);
    await pause(50);
    c.host.calls[0]!.respond(200, { n: 1 });
    await waitFor(() => expect(text("a")).toBe("1"));
    show(true);
    expect(text("b")).toBe("1");
    await pause(100);
    expect(c.host.calls).toHaveLength(1);
  });
});
