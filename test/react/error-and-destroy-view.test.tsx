// @vitest-environment jsdom
/**
 * What the hooks render across replicas after an error and after a destroy, render by render:
 * a recorded error (another replica's, or one persisted before a reload) is never the fresh answer
 * to a query that shows nothing (TanStack: an error is always stale, a query with no data fetches
 * on mount); a destroyed store's pane is left with no claim and nothing "fetching anywhere".
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { cluster, URL_A } from "../harness/replicas.ts";

afterEach(cleanup);

type Seen = {
  status: string;
  fetchStatus: string;
  data: unknown;
  claim: string;
  any: boolean;
  error?: string;
};

function claimText(claim: { mine: boolean; stale: boolean; replicaId: string } | undefined): string {
  return claim ? `${claim.mine ? "mine" : "foreign"}${claim.stale ? "-stale" : ""}` : "-";
}

function Pane({ url, log, opts }: { url: string | null; log: Seen[]; opts?: Record<string, unknown> }) {
  const q = useSharedFetch<{ n: number }>(url, opts as never);
  log.push({
    status: q.status,
    fetchStatus: q.fetchStatus,
    data: q.data,
    claim: claimText(q.claim),
    any: q.isFetchingAnywhere,
    ...(q.error ? { error: q.error.message } : {}),
  });
  return null;
}

function app(store: SharedFetchStoreWithExtras, client: QueryClient, children: ReactNode) {
  return (
    <QueryClientProvider client={client}>
      <SharedFetchProvider store={store}>{children}</SharedFetchProvider>
    </QueryClientProvider>
  );
}

const flush = () => act(async () => {});
const sleep = (ms: number) => act(() => new Promise<void>((r) => setTimeout(r, ms)));
// Waits for what the test expects rather than a fixed time: a busy machine may take longer. Each
// wait is its own act(), so React 18 renders between the checks.
async function until(check: () => void): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    await sleep(10);
    try {
      return check();
    } catch (error) {
      if (Date.now() > end) throw error;
    }
  }
}

describe("a recorded error is not a fresh answer for another tab's mount (TanStack: no data → fetch on mount)", () => {
  it("A's GET failed 1 s ago; B mounts with staleTime 60 s: B asks the host again (as useQuery in a new tab would)", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 503, body: "down" });
    const logA: Seen[] = [];
    render(app(a!, new QueryClient(), <Pane url={URL_A} log={logA} opts={{ staleTime: 60_000, retry: 0 }} />));
    await until(() => expect(logA.at(-1)).toMatchObject({ status: "error" }));
    expect(c.host.calls).toHaveLength(1);
    // the host recovers; the user opens another tab (or reloads)
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const logB: Seen[] = [];
    render(app(b!, new QueryClient(), <Pane url={URL_A} log={logB} opts={{ staleTime: 60_000, retry: 0 }} />));
    await until(() => expect(logB.at(-1)).toMatchObject({ status: "success", data: { n: 1 } }));
    expect(c.host.calls).toHaveLength(2);
  });

  it("a reload of the only tab after an error (new replica from its persisted doc), staleTime 60 s: asks again", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 503, body: "down" });
    const logA: Seen[] = [];
    const v = render(app(a!, new QueryClient(), <Pane url={URL_A} log={logA} opts={{ staleTime: 60_000, retry: 0 }} />));
    await until(() => expect(logA.at(-1)).toMatchObject({ status: "error" }));
    v.unmount();
    const doc = c.docOf(a!);
    c.crash(a!);
    a!.destroy();
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    const reloaded = c.join({}, doc);
    const logR: Seen[] = [];
    render(app(reloaded, new QueryClient(), <Pane url={URL_A} log={logR} opts={{ staleTime: 60_000, retry: 0 }} />));
    await until(() => expect(logR.at(-1)).toMatchObject({ status: "success", data: { n: 1 } }));
    expect(c.host.calls).toHaveLength(2);
  });
});

describe("destroy of a waiting replica's store", () => {
  it("A waits on B's claim; A's store is destroyed: A's pane does not keep a foreign claim / fetching-anywhere forever", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    void b!.ensure({ url: URL_A }).catch(() => {});
    await flush();
    const logA: Seen[] = [];
    render(app(a!, new QueryClient(), <Pane url={URL_A} log={logA} />));
    await flush();
    expect(logA.at(-1)).toMatchObject({ status: "pending", claim: "foreign", any: true });
    a!.destroy();
    await sleep(30);
    c.host.calls[0]!.respond(200, { n: 1 });
    await until(() => expect(logA.at(-1)).toMatchObject({ claim: "-", any: false }));
    expect(a!.snapshot({ url: URL_A }).claim).toBeUndefined();
  });
});
