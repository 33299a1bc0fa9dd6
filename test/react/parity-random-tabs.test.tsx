// @vitest-environment jsdom
/**
 * Randomized parity with TanStack Query, two tabs of one browser: the steps of
 * test/react/parity-random.test.tsx (test/harness/parity-steps.ts), each drawn for tab A or B.
 * A pane's steps (mount, unmount, its options, the client's methods) go to that tab alone; time,
 * focus, the network and the host are the browser's and reach both. The reference is ONE plain
 * TanStack tab given the same steps: one QueryClient, pane A and pane B of one `useQuery` over a
 * counting host, each pane given its tab's steps, the client's methods of either tab called on it.
 *
 * The rule, checked after each step settles, for each tab T:
 * - T's shared pane shows what the plain tab's pane T shows: status, fetchStatus, isStale, whether
 *   there is an error, whether dataUpdatedAt moved, and its data read as "none", a value the app
 *   set (setQueryData), "newest" (the newest answer the host gave that query's requests) or
 *   "older". A tab may show a result the other tab fetched, as pane T shows one pane B's fetch
 *   brought: then it is the newest recorded one.
 * - The host is sent at most as many shared requests as the plain tab sent for the union of the
 *   two panes' demands: tabs share requests as two panes share one query.
 * Allowed, each commented where it is: the one-tab test's differences (the poll window, a remount
 * joining its request, cancelQueries, resetQueries, removeQueries); and what two caches do that one
 * does not: the other tab's fetch shows "fetching" in that tab alone; invalidateQueries marks,
 * refetchQueries and invalidateQueries find active, setQueryData sets and cancelQueries cancels in
 * the caller's tab alone; errors are per replica; a disabled tab keeps the result it shows.
 * Where one of these may change what follows, the run stops comparing.
 * Seeded; PARITY_RUNS, PARITY_SEED and PARITY_TRACE raise, replay and print the runs.
 */
import { QueryClient, useQuery, type QueryKey } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import fc from "fast-check";
import { Fragment } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedQueryKey, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { op, pageStep, parityRuns, restorePage, seenOf, type Op, type Seen } from "../harness/parity-steps.ts";
import { app } from "../harness/render-app.tsx";
import { cluster, useFakeClock } from "../harness/replicas.ts";

const BASE = "https://api.example.test";
const SHARED_URL = `${BASE}/s/item`;
const PLAIN_URL = `${BASE}/u/item`;
type Body = { n: number };
type Step = { tab: 0 | 1; op: Op };
async function runSequence(steps: Step[]): Promise<string | null> {
  const locks = new FakeLocks();
  const c = cluster(0, { settleMs: 0 });
  const stores: SharedFetchStoreWithExtras[] = ["a", "b"].map((name) => c.join({ locks: locks.forTab(name), browserId: "browser-1" }));
  const clients = [0, 1].map(() => new QueryClient({ defaultOptions: { queries: { retry: false } } }));
  const plainClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  let failing = false;
  let holding = false;
  const sent = (url: string) => c.host.calls.filter((call) => call.url === url).length;
  const nth = (url: string, n: number) => c.host.calls.filter((other) => other.url === url && other.n <= n).length;
  // The newest answer the host gave each URL's requests (answers carry how many were sent before).
  const newest = new Map<string, number>();
  const reply = (url: string, n: number, ok: boolean) => {
    if (ok) newest.set(url, Math.max(newest.get(url) ?? 0, nth(url, n)));
    return ok ? { status: 200, body: { n: nth(url, n) } } : { status: 500, body: "down" };
  };
  c.host.auto = (call) => (holding ? undefined : reply(call.url, call.n, !failing));
  const plainFn = async ({ signal }: { signal: AbortSignal }) => {
    const res = await c.host.fetch(PLAIN_URL, { signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.json()) as Body;
  };
  const plainKey: QueryKey = ["plain", "item"];
  const keys = stores.map((store) => sharedQueryKey(store, SHARED_URL));
  // [tab][0] the shared pane, [tab][1] the plain tab's pane of that tab.
  const seen: (Seen | undefined)[][] = [[], []];
  const options: Record<string, unknown>[] = [0, 1].map(() => ({ enabled: true, staleTime: 0 }));
  const mounted = [false, false];
  const generation = [0, 0];
  const second = [false, false];
  function Shared({ tab }: { tab: number }) {
    seen[tab]![0] = seenOf(useSharedFetch<Body>(SHARED_URL, options[tab]));
    return null;
  }
  function Plain({ tab }: { tab: number }) {
    seen[tab]![1] = seenOf(useQuery({ queryKey: plainKey, queryFn: plainFn, ...options[tab] }));
    return null;
  }
  const panes = (tab: number, Pane: typeof Shared) =>
    mounted[tab] ? (
      <Fragment key={`${tab}.${generation[tab]}`}>
        <Pane tab={tab} />
        {second[tab] && <Pane tab={tab} />}
      </Fragment>
    ) : null;
  const tree = () => (
    <>
      {app(stores[0]!, panes(0, Shared), clients[0])}
      {app(stores[1]!, panes(1, Shared), clients[1])}
      {app(stores[0]!, [panes(0, Plain), panes(1, Plain)], plainClient)}
    </>
  );
  const view = render(tree());
  const rerender = () => view.rerender(tree());
  const settle = () => act(() => vi.advanceTimersByTimeAsync(50));
  const fire = (p: unknown) => void Promise.resolve(p).catch(() => {});
  // The client's methods of tab T: on T's client and on the plain tab's one.
  const onTab = (tab: number, fn: (client: QueryClient, key: QueryKey) => unknown) =>
    act(() => {
      fire(fn(clients[tab]!, keys[tab]!));
      fire(fn(plainClient, plainKey));
    });
  const invalidated = (client: QueryClient, key: QueryKey) =>
    client.getQueryCache().find({ queryKey: key, exact: true })?.state.isInvalidated;
  const marksDiffer = (tab: number) => !!invalidated(clients[tab]!, keys[tab]!) !== !!invalidated(plainClient, plainKey);
  let prevUpdated = [
    [0, 0],
    [0, 0],
  ];
  let diverged = false;
  try {
    for (let i = 0; i < steps.length; i++) {
      const { tab, op: o } = steps[i]!;
      const demand = o.t === "mount" || (o.t === "second" && o.on) || o.t === "focus" || o.t === "reconnect";
      // README, "Freshness is judged on the recorded result's age": a polled query's poll window covers its mounts and focuses.
      if (demand && options.some((x) => x.refetchInterval)) diverged = true;
      // Each tab has a cache of its own: one tab's invalidateQueries marks its query alone, where
      // the one plain query is marked for both panes, and a mark decides the next mount, focus or
      // option change. From a demand while the marks differ, the two may differ by design.
      if (["mount", "second", "focus", "reconnect", "enabled", "staleTime", "option"].includes(o.t) && [0, 1].some(marksDiffer))
        diverged = true;
      // Each tab has a cache of its own: the client's methods of tab T find its query active or
      // not by T's panes alone, the one plain query by both panes'.
      const active = (t: number) => mounted[t] && options[t]!.enabled !== false;
      if ((o.t === "invalidate" || o.t === "refetchQueries") && active(tab) !== (active(0) || active(1))) diverged = true;
      if (await pageStep(o)) {
        // Done: the page's, not a pane's.
      } else if (o.t === "mount" || o.t === "unmount") {
        // README, invariant 11: a remount in one commit while the request is in flight joins it.
        if (o.t === "mount" && mounted[tab] && c.host.open.some((call) => call.url === SHARED_URL)) diverged = true;
        mounted[tab] = o.t === "mount";
        generation[tab]!++;
        seen[tab] = [];
        rerender();
      } else if (o.t === "second") {
        second[tab] = o.on;
        rerender();
      } else if (o.t === "enabled") options[tab] = { ...options[tab], enabled: o.on };
      else if (o.t === "staleTime") options[tab] = { ...options[tab], staleTime: o.ms };
      else if (o.t === "option") options[tab] = { ...options[tab], [o.name]: o.value };
      else if (o.t === "gcTime") options[tab] = { ...options[tab], gcTime: o.ms };
      else if (o.t === "retry") options[tab] = { ...options[tab], retry: o.times, retryDelay: 1_000 };
      else if (o.t === "interval") options[tab] = { ...options[tab], refetchInterval: o.ms };
      else if (o.t === "select") options[tab] = { ...options[tab], select: o.on ? (d: Body) => ({ n: d.n * 2 }) : undefined };
      else if (o.t === "cancel") {
        // README, "What differs": cancelQueries keeps an observed query's request.
        if (mounted.some(Boolean) && c.host.open.length) diverged = true;
        // Each tab has a cache of its own: the other tab's fetch (paused offline, say) goes on,
        // where the one plain query's is cancelled for both panes.
        if (seen[1 - tab]![0] && seen[1 - tab]![0]!.fetchStatus !== "idle") diverged = true;
        onTab(tab, (client, key) => client.cancelQueries({ queryKey: key }));
      } else if (o.t === "reset" || o.t === "remove") {
        // README: after resetQueries or removeQueries the recorded result shows again.
        if (plainClient.getQueryData(plainKey) !== undefined) diverged = true;
        onTab(tab, (client, key) => (o.t === "reset" ? client.resetQueries({ queryKey: key }) : client.removeQueries({ queryKey: key })));
      } else if (o.t === "invalidate") {
        if (o.how === "all") onTab(tab, (client) => client.invalidateQueries({ refetchType: o.refetchType }));
        else if (o.how === "exact")
          onTab(tab, (client, key) => client.invalidateQueries({ queryKey: key, exact: true, refetchType: o.refetchType }));
        else
          onTab(tab, (client, key) =>
            client.invalidateQueries({ predicate: (q) => q.queryHash === JSON.stringify(key), refetchType: o.refetchType }),
          );
      } else if (o.t === "refetchQueries") onTab(tab, (client, key) => client.refetchQueries({ queryKey: key, type: o.type }));
      else if (o.t === "refetch") {
        const observer = (client: QueryClient, key: QueryKey) => client.getQueryCache().find({ queryKey: key })?.observers;
        // The plain tab's observer of pane T: pane A's come first when both are mounted.
        const at = tab === 1 && mounted[0] ? (second[0] ? 2 : 1) : 0;
        if (mounted[tab])
          act(() => {
            fire(observer(clients[tab]!, keys[tab]!)?.[0]?.refetch());
            fire(observer(plainClient, plainKey)?.[at]?.refetch());
          });
      } else if (o.t === "setQueryData") {
        // README: data the app sets with setQueryData is its tab's alone ("a failure rolled back in
        // its own tab alone"); the one plain query shows it in both panes.
        diverged = true;
        onTab(tab, (client, key) => client.setQueryData<Body>(key, { n: o.n }));
      } else if (o.t === "hold") holding = o.on;
      else if (o.t === "answer") {
        failing = !o.ok;
        for (const call of c.host.open) {
          const r = reply(call.url, call.n, o.ok);
          call.respond(r.status, r.body);
        }
      }
      if (["enabled", "staleTime", "option", "gcTime", "retry", "interval", "select"].includes(o.t)) rerender();
      await settle();
      await settle();
      const now = seen.map((tabSeen) => [tabSeen[0]?.updatedAt ?? 0, tabSeen[1]?.updatedAt ?? 0]);
      const read = (x: Seen | undefined, url: string, moved: boolean, tab: number) => {
        if (!x) return x;
        // The select step doubles what a pane shows.
        const raw = x.n === undefined || !options[tab]!.select ? x.n : x.n / 2;
        const data = raw === undefined ? "none" : raw >= 100 ? `set ${raw}` : raw === newest.get(url) ? "newest" : "older";
        return { status: x.status, fetchStatus: x.fetchStatus, data, isStale: x.isStale, error: x.error, dataUpdatedAtMoved: moved };
      };
      const mismatch: string[] = [];
      for (const t of [0, 1]) {
        const shared = read(seen[t]![0], SHARED_URL, now[t]![0]! > prevUpdated[t]![0]!, t);
        const plain = read(seen[t]![1], PLAIN_URL, now[t]![1]! > prevUpdated[t]![1]!, t);
        // Each tab has a cache of its own: the other tab's fetch (its client's method, its mount)
        // shows "fetching" in that tab alone, where the one plain query shows it in both panes.
        // This tab then shows its answer, recorded, as it shows any result the other tab fetched.
        if (shared?.fetchStatus === "idle" && plain?.fetchStatus !== "idle" && seen[1 - t]![0]?.fetchStatus !== "idle")
          shared.fetchStatus = plain!.fetchStatus;
        // README: "another tab's error never reaches this tab (errors are per replica)", where the
        // one plain query's error shows in both panes. From here the two may differ by design.
        if (plain?.error && !shared?.error && seen[1 - t]![0]?.error) diverged = true;
        // README: a result another tab records "stays out of a query that shows one, and shows once
        // the query is enabled, with no request", where a disabled plain pane shows what the one
        // query fetched for the other pane. From here the two may differ by design.
        if (options[t]!.enabled === false && plain?.dataUpdatedAtMoved && !shared?.dataUpdatedAtMoved) diverged = true;
        // isStale reads that mark (see marksDiffer above).
        if (shared && marksDiffer(t)) shared.isStale = plain!.isStale;
        const a = JSON.stringify(shared);
        const b = JSON.stringify(plain);
        if (a !== b) mismatch.push(`tab ${"AB"[t]}: shared ${a}\n         plain  ${b}`);
      }
      prevUpdated = now;
      if (diverged) return null;
      if (process.env.PARITY_TRACE) console.log(i, JSON.stringify(steps[i]), mismatch.join("\n"), sent(SHARED_URL), sent(PLAIN_URL));
      if (sent(SHARED_URL) > sent(PLAIN_URL)) mismatch.push(`requests: shared ${sent(SHARED_URL)} > plain ${sent(PLAIN_URL)}`);
      if (mismatch.length) return `after step ${i} (${JSON.stringify(steps[i])}):\n  ${mismatch.join("\n  ")}`;
    }
    return null;
  } finally {
    view.unmount();
    cleanup();
    [...clients, plainClient].forEach((client) => client.clear());
    c.destroy();
    restorePage();
    vi.useRealTimers();
  }
}

afterEach(() => vi.useRealTimers());

describe("random sequences of what a user does in two tabs: each shows what one plain TanStack tab with a pane per tab shows", () => {
  const { runs, seed } = parityRuns();
  const step = fc.record({ tab: fc.constantFrom(0 as const, 1 as const), op });
  it(`${runs} sequences (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        useFakeClock();
        const mismatch = await runSequence([{ tab: 0, op: { t: "mount" } }, { tab: 1, op: { t: "mount" } }, ...steps]);
        expect(mismatch).toBeNull();
      }),
      { seed, numRuns: runs },
    );
  }, 120_000);
});
