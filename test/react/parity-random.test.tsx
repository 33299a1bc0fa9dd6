// @vitest-environment jsdom
/**
 * Randomized parity with TanStack Query, one tab: fast-check draws sequences of what a user does
 * (mount, unmount, toggle `enabled`, change `staleTime`, time passing, focus, reconnect, the
 * client's methods, the host answering or failing) and applies each step to a plain `useQuery`
 * over a counting host and to `useSharedFetch` with the same options, in one QueryClient. After
 * each step both settle, and what a user sees must match: status, fetchStatus, data, isStale,
 * whether there is an error, whether dataUpdatedAt moved, and the requests sent. Where the README
 * ("Coming from TanStack Query", "What differs") says the shared query differs by design, the
 * property allows it below, naming the sentence. Seeded; a failure prints the shrunk sequence.
 * PARITY_RUNS raises the number of sequences (e.g. 2000 for a soak), PARITY_SEED replays one.
 */
import { QueryClient, useQuery, type QueryKey } from "@tanstack/react-query";
import { act, cleanup, render } from "@testing-library/react";
import fc from "fast-check";
import { Fragment } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedQueryKey, useSharedFetch } from "../../src/index.ts";
import type { HostCall } from "../../sim/host.ts";
import { app } from "../harness/render-app.tsx";
import { op, pageStep, parityRuns, restorePage, seenOf, type Op, type Seen } from "../harness/parity-steps.ts";
import { cluster, useFakeClock } from "../harness/replicas.ts";

const BASE = "https://api.example.test";
const SHARED_URL = `${BASE}/s/item`;
const PLAIN_URL = `${BASE}/p/item`;
type Body = { n: number };

/** What a user sees of one pane, and what it changed since the last step. */
/** Runs one sequence on both sides; returns the first step where they differ, or null. */
async function runSequence(ops: Op[]): Promise<string | null> {
  const c = cluster(1, { settleMs: 0 });
  const store = c.stores[0]!;
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  let failing = false;
  let holding = false;
  const sent = (prefix: string) => c.host.calls.filter((call) => call.url.startsWith(`${BASE}${prefix}`)).length;
  const answer = (call: HostCall, ok: boolean) => {
    const n = c.host.calls.filter((other) => other.url === call.url && other.n <= call.n).length;
    if (ok) call.respond(200, { n });
    else call.respond(500, "down");
  };
  c.host.auto = (call) => {
    if (holding) return undefined;
    const n = c.host.calls.filter((other) => other.url === call.url && other.n <= call.n).length;
    return failing ? { status: 500, body: "down" } : { status: 200, body: { n } };
  };
  const plainFn = async ({ signal }: { signal: AbortSignal }) => {
    const res = await c.host.fetch(PLAIN_URL, { signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.json()) as Body;
  };
  const sharedKey: QueryKey = sharedQueryKey(store, SHARED_URL);
  const plainKey: QueryKey = ["plain", "item"];
  const seen: (Seen | undefined)[] = [undefined, undefined];
  let options: Record<string, unknown> = { enabled: true, staleTime: 0 };
  function Shared() {
    seen[0] = seenOf(useSharedFetch<Body>(SHARED_URL, options));
    return null;
  }
  function Plain() {
    seen[1] = seenOf(useQuery({ queryKey: plainKey, queryFn: plainFn, ...options }));
    return null;
  }
  let mounted = false;
  let generation = 0;
  let second = false;
  const tree = () =>
    app(
      store,
      mounted ? (
        <Fragment key={generation}>
          <Shared />
          <Plain />
          {second && <Shared />}
          {second && <Plain />}
        </Fragment>
      ) : null,
      client,
    );
  const view = render(tree());
  const rerender = () => view.rerender(tree());
  const settle = () => act(() => vi.advanceTimersByTimeAsync(50));
  // Not awaited: a held host keeps a refetch's promise open; the settle after each step lets it run.
  const fire = (p: unknown) => void Promise.resolve(p).catch(() => {});
  const both = (fn: (key: QueryKey) => unknown) => act(() => [sharedKey, plainKey].forEach((key) => fire(fn(key))));
  let prevUpdated = [0, 0];
  let diverged = false;
  try {
    for (let i = 0; i < ops.length; i++) {
      const o = ops[i]!;
      // README, "Freshness is judged on the recorded result's age": for a polled query the poll
      // window also covers its mounts and focuses, where TanStack refetches stale data at once.
      const demand = o.t === "mount" || (o.t === "second" && o.on) || o.t === "focus" || o.t === "reconnect";
      if (demand && options.refetchInterval) diverged = true;
      if (await pageStep(o)) {
        // Done: the page's, not a pane's.
      } else if (o.t === "mount" || o.t === "unmount") {
        // README, invariant 11: a pane remounted in one commit (a route change) while its request
        // is in flight joins that request, where TanStack aborts it and sends another.
        if (o.t === "mount" && mounted && c.host.open.some((call) => call.url === SHARED_URL)) diverged = true;
        mounted = o.t === "mount";
        generation++;
        seen[0] = seen[1] = undefined;
        rerender();
      } else if (o.t === "enabled") {
        options = { ...options, enabled: o.on };
        rerender();
      } else if (o.t === "staleTime") {
        options = { ...options, staleTime: o.ms };
        rerender();
      } else if (o.t === "option" || o.t === "gcTime") {
        options = o.t === "option" ? { ...options, [o.name]: o.value } : { ...options, gcTime: o.ms };
        rerender();
      } else if (o.t === "retry" || o.t === "interval" || o.t === "select") {
        if (o.t === "retry") options = { ...options, retry: o.times, retryDelay: 1_000 };
        else if (o.t === "interval") options = { ...options, refetchInterval: o.ms };
        else options = { ...options, select: o.on ? (d: Body) => ({ n: d.n * 2 }) : undefined };
        rerender();
      } else if (o.t === "second") {
        second = o.on;
        rerender();
      } else if (o.t === "cancel") {
        // README, "What differs": cancelQueries keeps an observed query's request, whose answer
        // then shows; plain TanStack aborts it. From here the two may differ by design.
        if (mounted && c.host.open.length) diverged = true;
        both((key) => client.cancelQueries({ queryKey: key }));
      } else if (o.t === "reset") {
        // README, "Stale-while-revalidate across reloads": resetQueries resets to the result
        // recorded at the reset, where plain TanStack resets to no data.
        if (client.getQueryData(plainKey) !== undefined) diverged = true;
        both((key) => client.resetQueries({ queryKey: key }));
      } else if (o.t === "remove") {
        // README: after removeQueries the recorded result shows again; plain useQuery loads anew.
        if (client.getQueryData(plainKey) !== undefined) diverged = true;
        both((key) => client.removeQueries({ queryKey: key }));
      } else if (o.t === "invalidate") {
        // No filter: one call reaches both queries.
        if (o.how === "all") act(() => fire(client.invalidateQueries({ refetchType: o.refetchType })));
        else if (o.how === "exact") both((key) => client.invalidateQueries({ queryKey: key, exact: true, refetchType: o.refetchType }));
        else both((key) => client.invalidateQueries({ predicate: (q) => q.queryHash === JSON.stringify(key), refetchType: o.refetchType }));
      } else if (o.t === "refetchQueries") both((key) => client.refetchQueries({ queryKey: key, type: o.type }));
      else if (o.t === "refetch")
        both((key) => (mounted ? client.getQueryCache().find({ queryKey: key })?.observers[0]?.refetch() : undefined));
      else if (o.t === "setQueryData") act(() => void [sharedKey, plainKey].forEach((key) => client.setQueryData<Body>(key, { n: o.n })));
      else if (o.t === "hold") holding = o.on;
      else if (o.t === "answer") {
        failing = !o.ok;
        for (const call of c.host.open) answer(call, o.ok);
      }
      await settle();
      await settle();
      const [s, p] = seen;
      const now = [s?.updatedAt ?? 0, p?.updatedAt ?? 0];
      const moved = now.map((t, k) => t > prevUpdated[k]!);
      prevUpdated = now;
      const shown = (x: Seen | undefined, m: boolean) =>
        x && { status: x.status, fetchStatus: x.fetchStatus, n: x.n, isStale: x.isStale, error: x.error, dataUpdatedAtMoved: m };
      const a = JSON.stringify({ pane: shown(s, moved[0]!), sent: sent("/s/") });
      const b = JSON.stringify({ pane: shown(p, moved[1]!), sent: sent("/p/") });
      if (diverged) return null;
      if (process.env.PARITY_TRACE) console.log(i, JSON.stringify(o), a);
      if (a !== b) return `after step ${i} (${JSON.stringify(o)}):\n  shared ${a}\n  plain  ${b}`;
    }
    return null;
  } finally {
    view.unmount();
    cleanup();
    client.clear();
    c.destroy();
    restorePage();
    vi.useRealTimers();
  }
}

afterEach(() => vi.useRealTimers());

describe("random sequences of what a user does: useSharedFetch in one tab shows what useQuery shows", () => {
  const { runs, seed } = parityRuns();
  it(`${runs} sequences (seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        useFakeClock();
        const mismatch = await runSequence([{ t: "mount" }, ...ops]);
        expect(mismatch).toBeNull();
      }),
      { seed, numRuns: runs },
    );
  }, 120_000);
});
