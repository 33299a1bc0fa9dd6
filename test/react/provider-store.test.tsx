// @vitest-environment jsdom
/**
 * The provider's store replaced by another with the same identity (an app that re-creates its
 * store, e.g. after a logout and login as the same user): every key keeps its id, and the hooks
 * must read and listen to the new store, as they do on a fresh mount.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

function app(store: SharedFetchStoreWithExtras, client: QueryClient, node: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

function Pane() {
  const q = useSharedFetch<{ n: number }>(URL_A, { staleTime: 60_000 });
  const claim = q.claim ? (q.claim.mine ? "mine" : "foreign") : "none";
  return <span data-testid="pane">{`${q.data?.n ?? "-"} ${claim} ${String(q.isFetchingAnywhere)}`}</span>;
}

for (const remount of [false, true])
  it(`a pane ${remount ? "remounted" : "kept"} across the store's replacement shows another replica's claim seen by the new store (invariant 1: truthful pending)`, async () => {
    const c = cluster(2, { settleMs: 0 });
    const [old, other] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const client = new QueryClient();
    const view = render(app(old!, client, <Pane key="pane" />));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("1 none false"));
    const replacement = c.join();
    await act(async () => {});
    old!.destroy();
    view.rerender(app(replacement, client, <Pane key={remount ? "again" : "pane"} />));
    await act(async () => {});
    c.host.auto = undefined; // the other replica's refetch hangs
    await act(async () => void other!.refetch({ url: URL_A }).catch(() => {}));
    await waitFor(() => expect(replacement.snapshot({ url: URL_A }).claim?.mine).toBe(false));
    await waitFor(() => expect(screen.getByTestId("pane").textContent).toBe("1 foreign true"));
  });
