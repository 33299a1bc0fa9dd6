// @vitest-environment jsdom
/**
 * TanStack's "initial data from the cache" recipe (`initialData: () => client.getQueryData(list)
 * ?.find(…)`) on a shared query: where the function finds nothing, the result another tab recorded
 * still shows at once (stale-while-revalidate, as without an initialData), and where it finds
 * data dated by `initialDataUpdatedAt`, another tab's newer result replaces it with no request.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, URL_A } from "../harness/replicas.ts";
import { pause } from "../harness/two-panes.tsx";

afterEach(cleanup);
type Item = { n: number };

function Pane({ store, options }: { store: SharedFetchStoreWithExtras; options: Parameters<typeof sharedQueryOptions<Item>>[2] }) {
  const q = useQuery(sharedQueryOptions<Item>(store, URL_A, options));
  return <span data-testid="pane">{`${q.status}/${q.data?.n ?? "-"}`}</span>;
}

/** Tab A records { n: 1 }; tab B's pane mounts afterwards, its store already holding it. */
async function recordedByOtherTab() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = () => ({ status: 200, body: { n: 1 } });
  await c.stores[0]!.ensure({ url: URL_A });
  await act(async () => {});
  c.host.auto = () => undefined;
  return { c, b: c.stores[1] as SharedFetchStoreWithExtras };
}

describe("initialData of the caller's beside what another tab recorded", () => {
  it("a function that finds nothing in the cache: the recorded result shows at once, as without one (stale-while-revalidate)", async () => {
    const { c, b } = await recordedByOtherTab();
    const client = new QueryClient();
    const fromList = () => client.getQueryData<Item[]>(["list"])?.find((i) => i.n === 1);
    render(app(b, <Pane store={b} options={{ staleTime: 60_000, initialData: fromList }} />, client));
    expect(screen.getByTestId("pane").textContent).toBe("success/1");
    await pause(50);
    expect(c.host.calls).toHaveLength(1);
  });

  it("a function that finds data keeps it, dated by initialDataUpdatedAt, until a newer result: no request while fresh", async () => {
    const { c, b } = await recordedByOtherTab();
    const client = new QueryClient();
    client.setQueryData<Item[]>(["list"], [{ n: 0 }]);
    const fromList = () => client.getQueryData<Item[]>(["list"])?.[0];
    const at = () => client.getQueryState(["list"])?.dataUpdatedAt;
    render(app(b, <Pane store={b} options={{ staleTime: 60_000, initialData: fromList, initialDataUpdatedAt: at }} />, client));
    // The list was set after tab A's result: its item is the newer data.
    expect(screen.getByTestId("pane").textContent).toBe("success/0");
    await pause(50);
    expect(screen.getByTestId("pane").textContent).toBe("success/0");
    // Tab A's next result, requested after the list was set, replaces it.
    const next = c.stores[0]!.refetch({ url: URL_A });
    await pause(20);
    c.host.calls[1]!.respond(200, { n: 2 });
    await act(() => next);
    await pause(20);
    expect(screen.getByTestId("pane").textContent).toBe("success/2");
    expect(c.host.calls).toHaveLength(2);
  });
});
