// @vitest-environment jsdom
/**
 * README, "Clock skew between devices": data hydrated from a server whose clock runs an hour ahead
 * of this browser's (or a browser whose clock runs an hour behind) is dated in this tab's future.
 * It is as young as the hydration here, never younger: it goes stale `staleTime` after it, and a
 * result another replica records later reaches the pane (it was refused as older than the
 * hydrated data for the hour).
 */
import { dehydrate, HydrationBoundary, QueryClient, QueryClientProvider, useQuery, type DehydratedState } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore, sharedQueryOptions, SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";
import { advance } from "../harness/render-app.tsx";

afterEach(cleanup);
const HOUR = 3_600_000;
const OPTIONS = { staleTime: 10_000 };

/** The server's render: its own store on a plain doc, its clock an hour ahead of this process's. */
async function serverState(fetch: typeof globalThis.fetch): Promise<DehydratedState> {
  vi.setSystemTime(Date.now() + HOUR);
  try {
    const store = createSharedFetchStore({ doc: new Y.Doc(), fetch, settleMs: 0 });
    const client = new QueryClient();
    await until(client.prefetchQuery(sharedQueryOptions(store, URL_A, OPTIONS)));
    store.destroy();
    return JSON.parse(JSON.stringify(dehydrate(client))) as DehydratedState;
  } finally {
    vi.setSystemTime(Date.now() - HOUR);
  }
}

function Pane({ store }: { store: SharedFetchStoreWithExtras }) {
  const q = useQuery(sharedQueryOptions<{ n: number }>(store, URL_A, OPTIONS));
  return <span data-testid="pane">{`${q.data?.n}/${q.isStale ? "stale" : "fresh"}`}</span>;
}

describe("clock skew: hydrated data dated in this tab's future is as young as the hydration", () => {
  it("another replica's later result reaches the hydrated pane, and the hydrated data goes stale after staleTime", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const [tab, other] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
    const state = await serverState(c.host.fetch);
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SharedFetchProvider store={tab}>
          <HydrationBoundary state={state}>
            <Pane store={tab} />
          </HydrationBoundary>
        </SharedFetchProvider>
      </QueryClientProvider>,
    );
    await advance(0);
    expect(screen.getByTestId("pane").textContent).toBe("1/fresh");
    expect(c.host.calls).toHaveLength(1);
    await advance(11_000);
    expect(screen.getByTestId("pane").textContent).toBe("1/stale");
    // Another tab refetches: its result, recorded now, is newer than what was hydrated.
    await until(other.refetch({ url: URL_A }));
    await advance(0);
    expect(screen.getByTestId("pane").textContent).toBe("2/fresh");
  });
});
