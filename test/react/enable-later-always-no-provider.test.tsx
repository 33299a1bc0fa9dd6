// @vitest-environment jsdom
/**
 * The enable-later case of enable-later-always.test.tsx where nothing of this package watches the
 * QueryClient yet: TanStack's own useQuery over sharedQueryOptions, no SharedFetchProvider, and no
 * shared fetch in that client before the enable (the first one would start watching its cache).
 * `refetchOnMount: "always"` is about mounts; enabling later is no mount (TanStack's
 * shouldFetchOptionally), so a result another replica recorded within staleTime answers it.
 */
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras, type SharedQueryOptionsInput } from "../../src/index.ts";
import { advance } from "../harness/render-app.tsx";
import { cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);

type Opts = SharedQueryOptionsInput<{ n: number }>;

function Pane({ store, request, options }: { store: SharedFetchStoreWithExtras; request: string | null; options: Opts }) {
  const { data } = useQuery(sharedQueryOptions<{ n: number }>(store, request, options));
  return <span data-testid="pane">{data ? data.n : "-"}</span>;
}

/**
 * Replica 0 recorded URL_A two minutes ago (replica 1's pane shows it at once, stale by then),
 * replica 1's pane mounts with `first` (none: no pane), replica 0 records a newer result, and a second
 * later the pane renders with `then`: the requests sent from then on, and what it shows.
 */
async function enableLater(first: Opts | null, then: Opts) {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  await until(c.stores[0]!.refetch({ url: URL_A }));
  await advance(120_000);
  const client = new QueryClient();
  const at = (request: string | null, options: Opts) => (
    <QueryClientProvider client={client}>
      <Pane store={c.stores[1]!} request={request} options={options} />
    </QueryClientProvider>
  );
  const { rerender } = render(first ? at(URL_A, first) : <></>);
  await advance(100);
  await until(c.stores[0]!.refetch({ url: URL_A }));
  await advance(1_000);
  const before = c.host.calls.length;
  rerender(at(URL_A, then));
  await advance(100);
  return { calls: c.host.calls.length - before, shown: screen.getByTestId("pane").textContent };
}

const always = { refetchOnMount: "always", staleTime: 60_000 } as const;

describe('enabling a plain useQuery later is no mount, with refetchOnMount: "always", before its client\'s first shared fetch', () => {
  beforeEach(useFakeClock);

  it("enabled: false, then enabled: the result recorded a second ago answers it, no request", async () => {
    expect(await enableLater({ ...always, enabled: false }, always)).toEqual({ calls: 0, shown: "2" });
  });

  it("an enabled function that says false, then enabled: the same, no request", async () => {
    const off = { ...always, enabled: () => false };
    expect(await enableLater(off, always)).toEqual({ calls: 0, shown: "2" });
  });

  it('a real mount with refetchOnMount: "always" still asks for a newer result (one request)', async () => {
    expect(await enableLater(null, always)).toEqual({ calls: 1, shown: "3" });
  });
});
