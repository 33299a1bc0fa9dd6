// @vitest-environment jsdom
/**
 * The store's own data stays the store's delivery, compared with newer records by revision: only
 * data that enters a query otherwise (test/react/hydrated-over-delivered.test.tsx) is compared by
 * time. A result from a device whose clock runs behind ("Clock skew between devices") is dated
 * before what the tab shows; by revision it is newer, and goes in.
 */
import { QueryClient, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, onDevice, URL_A, useFakeClock, type Cluster } from "../harness/replicas.ts";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
type Item = { n: number | string };
const text = () => screen.getByTestId("pane").textContent;

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<Item>(store, URL_A, { staleTime: 10_000 }));
  return <span data-testid="pane">{String(q.data?.n ?? q.status)}</span>;
}

/** The tab shows revision 1; returns the cluster: [tab, other, slow]. */
async function showingOne() {
  const c = cluster(3, { settleMs: 0 });
  const client = new QueryClient();
  render(app(c.stores[0]!, <Pane store={c.stores[0]!} />, client));
  await advance(0);
  c.host.calls[0]!.respond(200, { n: 1 });
  await advance(0);
  expect(text()).toBe("1");
  return { c, client };
}

/** The device whose clock runs 10 s behind refreshes: revision past what the tab shows, dated before it. */
async function slowDeviceRefreshes(c: Cluster, n: number) {
  const slow = c.stores[2]!;
  const sent = c.host.calls.length;
  await onDevice(c, slow, -10_000, async () => {
    void slow.refetch({ url: URL_A }).catch(() => {});
    await advance(0);
    c.host.calls[sent]!.respond(200, { n });
    await advance(0);
  });
  await advance(50);
}

describe("the store's own data is compared by revision, whatever its writer's clock", () => {
  beforeEach(() => useFakeClock());

  it("a fetch of the tab that joined another tab's request sent before it asked: a slow device's later revision goes in", async () => {
    const { c, client } = await showingOne();
    await advance(1_000);
    void c.stores[1]!.refetch({ url: URL_A }).catch(() => {});
    await advance(0);
    await advance(1_000);
    // The tab asks again (its own fetch, no staleTime): it joins the request in flight.
    const fetched = client.fetchQuery(sharedQueryOptions(c.stores[0]!, URL_A));
    await advance(0);
    expect(c.host.calls).toHaveLength(2);
    c.host.calls[1]!.respond(200, { n: 2 });
    await act(() => fetched);
    await advance(50);
    expect(text()).toBe("2");
    await advance(1_000);
    await slowDeviceRefreshes(c, 3);
    expect(text()).toBe("3");
  });
});

describe("a fetch cancelled once its result was read leaves no mark of a delivery", () => {
  beforeEach(() => useFakeClock());

  /** The tab refetches itself (revision 2); the app cancels the query as the store records the answer. */
  async function cancelledAsRecorded() {
    const { c, client } = await showingOne();
    const [tab] = c.stores as [SharedFetchStoreWithExtras];
    await advance(1_000);
    void client.refetchQueries();
    await advance(0);
    expect(c.host.calls).toHaveLength(2);
    let cancelled = false;
    const off = tab.subscribe({ url: URL_A }, () => {
      const data = tab.snapshot({ url: URL_A }).data as Item | undefined;
      if (data?.n !== 2 || cancelled) return;
      cancelled = true;
      void client.cancelQueries();
    });
    c.host.calls[1]!.respond(200, { n: 2 });
    await advance(50);
    off();
    expect(cancelled).toBe(true);
    return { c, client };
  }

  it("the recorded result still reaches the query, as another replica's would", async () => {
    await cancelledAsRecorded();
    expect(text()).toBe("2");
  });

  it("the app's own query function answering later is not taken for the store's: a result requested before it stays out", async () => {
    const { c, client } = await cancelledAsRecorded();
    const other = c.stores[1]!;
    await advance(1_000);
    void other.refetch({ url: URL_A }).catch(() => {});
    await advance(0);
    expect(c.host.calls).toHaveLength(3);
    await advance(1_000);
    const { queryKey } = sharedQueryOptions(c.stores[0]!, URL_A);
    await act(() => client.fetchQuery({ queryKey, queryFn: async () => ({ n: "own" }), staleTime: 0 }));
    await advance(0);
    expect(text()).toBe("own");
    c.host.calls[2]!.respond(200, { n: 3 });
    await advance(50);
    expect(other.snapshot({ url: URL_A }).data).toEqual({ n: 3 });
    expect(text()).toBe("own");
  });
});
