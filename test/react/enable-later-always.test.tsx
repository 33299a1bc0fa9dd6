// @vitest-environment jsdom
/**
 * `refetchOnMount: "always"` is about mounts (TanStack's option): a query that mounts with
 * `enabled: false` and is enabled later is no mount then, and TanStack fetches only what is stale
 * (its observer's shouldFetchOptionally). Here that is a freshness demand (staleTime): a result
 * another replica recorded a second ago answers it, with "always" as without. A real mount with
 * "always" still sends a request.
 */
import { QueryClient } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras, type UseSharedFetchOptions } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);

function Pane({ options }: { options: UseSharedFetchOptions<{ n: number }> }) {
  const { data } = useSharedFetch<{ n: number }>(URL_A, options);
  return <span data-testid="pane">{data ? data.n : "-"}</span>;
}

const pane = (store: SharedFetchStoreWithExtras, options: UseSharedFetchOptions<{ n: number }>, client: QueryClient) =>
  app(store, <Pane options={options} />, client);

/**
 * This replica showed URL_A's first answer two minutes ago (its query keeps that, stale, in the
 * cache); a pane mounts with `first` options (none: no pane); another replica records a newer
 * result; a second later the pane re-renders with `then`: the requests sent from then on, and what
 * the pane shows.
 */
async function laterRender(first: UseSharedFetchOptions<{ n: number }> | null, then: UseSharedFetchOptions<{ n: number }>) {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const client = new QueryClient();
  const { rerender } = render(pane(c.stores[1]!, {}, client));
  await advance(100);
  rerender(<></>);
  await advance(120_000);
  rerender(first ? pane(c.stores[1]!, first, client) : <></>);
  await advance(100);
  await until(c.stores[0]!.refetch({ url: URL_A }));
  await advance(1_000);
  const before = c.host.calls.length;
  rerender(pane(c.stores[1]!, then, client));
  await advance(100);
  return { calls: c.host.calls.length - before, shown: screen.getByTestId("pane").textContent };
}

const always = { refetchOnMount: "always", staleTime: 60_000 } as const;

describe('enabling a query later is no mount, with refetchOnMount: "always" as without (TanStack)', () => {
  beforeEach(useFakeClock);

  it("without the option: the result recorded a second ago answers the enable, no request", async () => {
    expect(await laterRender({ staleTime: 60_000, enabled: false }, { staleTime: 60_000 })).toEqual({ calls: 0, shown: "2" });
  });

  it('with refetchOnMount: "always": the same, no request', async () => {
    expect(await laterRender({ ...always, enabled: false }, always)).toEqual({ calls: 0, shown: "2" });
  });

  it('a real mount with refetchOnMount: "always" still asks for a newer result (one request)', async () => {
    expect(await laterRender(null, always)).toEqual({ calls: 1, shown: "3" });
  });
});
