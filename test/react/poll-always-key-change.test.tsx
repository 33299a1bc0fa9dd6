// @vitest-environment jsdom
/**
 * `refetchOnMount: "always"` is about mounts (TanStack's option): a polled query whose key changes
 * under a mounted observer (pages on, a filter changes) is no mount, and TanStack fetches then only
 * what is stale, as it does without the option. Here that is a freshness demand (the poll window):
 * a result another replica recorded a second ago answers it, with "always" as without.
 */
import { QueryClient } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useSharedFetch, type SharedFetchStoreWithExtras, type UseSharedFetchOptions } from "../../src/index.ts";
import { advance, app } from "../harness/render-app.tsx";
import { cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const URL_B = `${URL_A}?page=2`;

afterEach(cleanup);

function Pane({ url, options }: { url: string; options: UseSharedFetchOptions<{ n: number }> }) {
  const { data } = useSharedFetch<{ n: number }>(url, options);
  return <span data-testid="pane">{data ? data.n : "-"}</span>;
}

const pane = (store: SharedFetchStoreWithExtras, url: string, options: UseSharedFetchOptions<{ n: number }>, client: QueryClient) =>
  app(store, <Pane url={url} options={options} />, client);

/** A polled pane on URL_A pages on to URL_B, which another replica recorded a second before: the requests sent. */
async function pageOn(options: UseSharedFetchOptions<{ n: number }>): Promise<string[]> {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const client = new QueryClient();
  const { rerender } = render(pane(c.stores[1]!, URL_A, options, client));
  await advance(100);
  await until(c.stores[0]!.ensure({ url: URL_B }));
  await advance(1_000);
  const before = c.host.calls.length;
  rerender(pane(c.stores[1]!, URL_B, options, client));
  await advance(100);
  expect(screen.getByTestId("pane").textContent).not.toBe("-");
  return c.host.calls.slice(before).map((call) => call.url);
}

describe('a polled query\'s key change is no mount, with refetchOnMount: "always" as without (TanStack)', () => {
  beforeEach(useFakeClock);

  it("without the option: the result recorded a second ago answers the new key, no request", async () => {
    expect(await pageOn({ refetchInterval: 60_000 })).toEqual([]);
  });

  it('with refetchOnMount: "always": the same, no request', async () => {
    expect(await pageOn({ refetchInterval: 60_000, refetchOnMount: "always" })).toEqual([]);
  });
});
