// @vitest-environment jsdom
/**
 * README, "Clock skew between devices": a result recorded by a device whose clock runs an hour
 * ahead reaches TanStack with a `dataUpdatedAt` no later than when this replica first saw it, the
 * age the store judges it by: `isStale`, a remount and a focus agree with the store, and the data
 * goes stale `staleTime` after it arrived, not an hour later.
 */
import { focusManager, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, onDevice, until, URL_A, useFakeClock } from "../harness/replicas.ts";
import { advance } from "../harness/render-app.tsx";

afterEach(() => {
  cleanup();
  focusManager.setFocused(undefined);
});
const HOUR = 3_600_000;

/** Two devices' stores (call after useFakeClock). */
function devices() {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  return { c, ahead: c.stores[0]!, b: c.stores[1]! };
}

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_A, { staleTime: 10_000 }));
  return <span data-testid="pane">{`${q.data?.n}/${q.isStale ? "stale" : "fresh"}/${q.dataUpdatedAt}`}</span>;
}

const shown = () => screen.getByTestId("pane").textContent!.split("/");

describe("clock skew: TanStack's dataUpdatedAt for a result dated an hour ahead is when it arrived here", () => {
  it("shown at mount (initialData): fresh at first, stale 10 s after it arrived, and a remount then refetches", async () => {
    useFakeClock();
    const { c, ahead, b } = devices();
    await onDevice(c, ahead, HOUR, () => until(ahead.ensure({ url: URL_A })));
    const arrived = Date.now();
    const client = new QueryClient();
    const tree = () => (
      <QueryClientProvider client={client}>
        <SharedFetchProvider store={b}>
          <Pane store={b} />
        </SharedFetchProvider>
      </QueryClientProvider>
    );
    const view = render(tree());
    await advance(0);
    expect(shown()[0]).toBe("1");
    expect(Number(shown()[2])).toBeLessThanOrEqual(arrived);
    expect(c.host.calls).toHaveLength(1);
    await advance(11_000);
    expect(shown()[1]).toBe("stale");
    view.unmount();
    render(tree());
    await advance(100);
    expect(shown()[0]).toBe("2");
    expect(c.host.calls).toHaveLength(2);
  });

  it("pushed into a mounted query (the bridge): a focus 10 s after it arrived refetches", async () => {
    useFakeClock();
    const { c, ahead, b } = devices();
    await until(b.ensure({ url: URL_A }));
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SharedFetchProvider store={b}>
          <Pane store={b} />
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await advance(0);
    expect(shown()[0]).toBe("1");
    await onDevice(c, ahead, HOUR, () => until(ahead.refetch({ url: URL_A })));
    const arrived = Date.now();
    await advance(0);
    expect(shown()[0]).toBe("2");
    expect(Number(shown()[2])).toBeLessThanOrEqual(arrived);
    await advance(11_000);
    expect(shown()[1]).toBe("stale");
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    await advance(100);
    expect(shown()[0]).toBe("3");
    expect(c.host.calls).toHaveLength(3);
  });
});
