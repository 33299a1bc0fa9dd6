// @vitest-environment jsdom
/**
 * A shared query with no observer (its pane unmounted, still in the cache until gcTime) is kept
 * current with other replicas' results, passively: TanStack's getQueryData and the next mount read
 * the newest recorded result, as TanStack with its broadcast plugin would, while the query stays no
 * demand (no claim, no request, no takeover of a crashed claimant's work for a key nobody shows).
 */
import { dehydrate, focusManager, onlineManager, QueryClient, useQuery } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { readersOf } from "../../src/react/cache-reads.ts";
import { advance, app } from "../harness/render-app.tsx";
import { background, cluster, until, URL_A, useFakeClock } from "../harness/replicas.ts";

afterEach(cleanup);

type Item = { n: number };

type PaneProps = { store: SharedFetchStoreWithExtras; seen?: (number | undefined)[]; gcTime?: number; url?: string };

function Pane({ store, seen, gcTime, url = URL_A }: PaneProps) {
  const q = useQuery(sharedQueryOptions<Item>(store, url, { staleTime: 60_000, ...(gcTime ? { gcTime } : {}) }));
  seen?.push(q.data?.n);
  return <span data-testid="b">{q.data ? String(q.data.n) : q.status}</span>;
}

/**
 * Tabs A and B; B's pane showed the first answer ({ n: 1 }, its request) and was unmounted (B's
 * provider stays, its query stays cached); B's own claims and requests are logged from then on.
 */
async function bShowedThenUnmounted(gcTime?: number) {
  const c = cluster(2, { settleMs: 0 });
  c.host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const [a, b] = c.stores as [SharedFetchStoreWithExtras, SharedFetchStoreWithExtras];
  const clientB = new QueryClient();
  const { rerender } = render(app(b, <Pane store={b} gcTime={gcTime} />, clientB));
  await advance(100);
  expect(screen.getByTestId("b").textContent).toBe("1");
  rerender(app(b, <></>, clientB));
  await advance(100);
  const byB: string[] = [];
  b.onEvent((e) => (e.type === "claimed" || e.type === "dispatched") && byB.push(e.type));
  const key = sharedQueryOptions(b, URL_A).queryKey;
  return { c, a, b, clientB, rerender, byB, key };
}

describe("a shared query with no observer stays current, passively", () => {
  beforeEach(useFakeClock);

  it("B's pane unmounted, A refetches: B's getQueryData is A's result, with no request and no claim by B", async () => {
    const { c, a, clientB, byB, key } = await bShowedThenUnmounted();
    await until(a.refetch({ url: URL_A }));
    await advance(100);
    expect(clientB.getQueryData(key)).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
    expect(byB).toEqual([]);
  });

  it("B remounts after A's refetch: its first render shows the newest result, never the old one, with no request", async () => {
    const { c, a, b, clientB, rerender, byB } = await bShowedThenUnmounted();
    await until(a.refetch({ url: URL_A }));
    await advance(100);
    const seen: (number | undefined)[] = [];
    rerender(app(b, <Pane store={b} seen={seen} />, clientB));
    await advance(100);
    expect(seen[0]).toBe(2);
    expect(seen.every((n) => n === 2)).toBe(true);
    expect(c.host.calls).toHaveLength(2);
    expect(byB).toEqual([]);
  });

  it("the app's own setQueryData on B's unobserved query stays over the older record; a failed refetch of A's leaves B's data", async () => {
    const { c, a, clientB, key } = await bShowedThenUnmounted();
    clientB.setQueryData(key, { n: 99 });
    expect(clientB.getQueryData(key)).toEqual({ n: 99 });
    c.host.auto = () => ({ status: 500, body: "down" });
    await until(a.refetch({ url: URL_A }));
    await advance(100);
    expect(clientB.getQueryData(key)).toEqual({ n: 99 });
    expect(clientB.getQueryState(key)?.error).toBeNull();
  });

  it("crashed claimant: A's refetch abandoned by its crash is not taken over by B's unobserved query, read or not; B's pane mounting takes it over", async () => {
    const { c, a, b, clientB, rerender, byB, key } = await bShowedThenUnmounted();
    c.host.auto = undefined;
    background(a.refetch({ url: URL_A }));
    await advance(100);
    expect(c.host.calls).toHaveLength(2);
    c.crash(a);
    // Far past A's lease (5 s): B's reads find A's claim stale, and leave it.
    for (let i = 0; i < 10; i++) {
      expect(clientB.getQueryData(key)).toEqual({ n: 1 });
      await advance(2_000);
    }
    expect(c.host.calls).toHaveLength(2);
    expect(byB).toEqual([]);
    expect(b.claims().map(([, claim]) => claim.replicaId)).toEqual([a.replicaId]);

    // Shown (demand), the key's abandoned work is B's to finish.
    rerender(app(b, <Pane store={b} />, clientB));
    await advance(100);
    expect(c.host.calls).toHaveLength(3);
    expect(byB).toContain("claimed");
  });

  it("the query removed from B's cache (gcTime) is read no more: no bridge of B's store reads the cache once its provider and query are gone", async () => {
    const { clientB, rerender, key } = await bShowedThenUnmounted(1_000);
    const cache = clientB.getQueryCache();
    rerender(<></>);
    await advance(100);
    // Its provider gone, the cached query keeps the bridge (and its reader) alive.
    expect(cache.find({ queryKey: key, exact: true })).toBeDefined();
    expect(readersOf(cache)).toBe(1);
    await advance(2_000);
    expect(cache.find({ queryKey: key, exact: true })).toBeUndefined();
    expect(readersOf(cache)).toBe(0);
  });
});

describe("every TanStack read of an unobserved shared query is current, and only a read is", () => {
  beforeEach(useFakeClock);

  it("after A's refetch: getQueriesData, setQueriesData's updater, find, findAll, getAll and dehydrate give A's result, with no request and no claim by B", async () => {
    const { c, a, clientB, byB, key } = await bShowedThenUnmounted();
    const cache = clientB.getQueryCache();
    const prefix = key.slice(0, 3);
    const refetched = async (n: number) => {
      await until(a.refetch({ url: URL_A }));
      await advance(100);
      return { n };
    };

    let next = await refetched(2);
    expect(clientB.getQueriesData({ queryKey: prefix })).toEqual([[key, next]]);
    next = await refetched(3);
    expect(cache.find({ queryKey: key })?.state.data).toEqual(next);
    next = await refetched(4);
    expect(cache.findAll({ queryKey: prefix }).map((q) => q.state.data)).toEqual([next]);
    next = await refetched(5);
    expect(cache.getAll().map((q) => q.state.data)).toEqual([next]);
    next = await refetched(6);
    expect(dehydrate(clientB).queries.map((q) => q.state.data)).toEqual([next]);
    next = await refetched(7);
    const seen: unknown[] = [];
    // An updater that returns undefined sets nothing: what it was handed is all it shows.
    clientB.setQueriesData<Item>({ queryKey: prefix }, (old) => void seen.push(old));
    expect(seen).toEqual([next]);

    expect(c.host.calls).toHaveLength(7);
    expect(byB).toEqual([]);
  });

  it("findAll reads only the queries it returns: a filter for one of two unobserved queries reads that one, and no observed query is read", async () => {
    const { b, clientB, rerender, key } = await bShowedThenUnmounted();
    const urlB = `${URL_A}/other`;
    const other = sharedQueryOptions(b, urlB).queryKey;
    rerender(app(b, <Pane store={b} url={urlB} />, clientB));
    await advance(100);
    rerender(app(b, <Pane store={b} />, clientB));
    await advance(100);
    const reads = vi.spyOn(b, "snapshot");
    // URL_A's query is observed now: found, it is not read (it is watched).
    clientB.getQueryCache().findAll({ queryKey: key });
    expect(reads).not.toHaveBeenCalled();
    clientB.getQueryCache().findAll({ queryKey: other });
    expect(reads.mock.calls.map(([req]) => req.url)).toEqual([urlB]);
  });

  it("the bridge's own handling of a cache event is no read: invalidating B's unobserved query reads nothing recorded; getQueryData still reads", async () => {
    const { b, clientB, key } = await bShowedThenUnmounted();
    const query = clientB.getQueryCache().find({ queryKey: key })!;
    const reads = vi.spyOn(b, "snapshot");
    // A cache event of the query with no lookup of the app's: TanStack's Query.invalidate.
    query.invalidate();
    await advance(100);
    expect(reads).not.toHaveBeenCalled();
    clientB.getQueryData(key);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it("TanStack's own walks of the cache read nothing: a window focus, a reconnect and clear() read no unobserved query", async () => {
    const { b, clientB } = await bShowedThenUnmounted();
    const reads = vi.spyOn(b, "snapshot");
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    await advance(100);
    clientB.clear();
    expect(reads).not.toHaveBeenCalled();
    focusManager.setFocused(undefined);
  });

  it("the app's cache listener reads during a push: getQueryData of another unobserved query, of this client or another one in the tab, as B's read of one query sets it, gives A's result", async () => {
    const { a, b, clientB, rerender, key } = await bShowedThenUnmounted();
    const urlB = `${URL_A}/other`;
    const other = sharedQueryOptions(b, urlB).queryKey;
    rerender(app(b, <Pane store={b} url={urlB} />, clientB));
    await advance(100);
    rerender(app(b, <></>, clientB));
    // Another QueryClient of the tab on the same store, its query of urlB shown then unmounted too.
    const clientC = new QueryClient();
    const c2 = render(app(b, <Pane store={b} url={urlB} />, clientC));
    await advance(100);
    c2.rerender(app(b, <></>, clientC));
    await advance(100);
    expect([clientB.getQueryData(other), clientC.getQueryData(other)]).toEqual([{ n: 2 }, { n: 2 }]);
    const query = clientB.getQueryCache().find({ queryKey: key, exact: true });
    await until(a.refetch({ url: URL_A }));
    await until(a.refetch({ url: urlB }));
    await advance(100);

    const seen: unknown[] = [];
    clientB.getQueryCache().subscribe((event) => {
      if (event.type === "updated" && event.query === query && !seen.length)
        seen.push(clientB.getQueryData(other), clientC.getQueryData(other));
    });
    // Reading URL_A's query puts A's result in (a push): the listener hears that set.
    expect(clientB.getQueryData(key)).toEqual({ n: 3 });
    expect(seen).toEqual([{ n: 4 }, { n: 4 }]);
  });

  it("the app's lookups inside a filter's predicate read: invalidateQueries' predicate sees A's result in getQueryData, and a find of its own", async () => {
    const { a, clientB, key } = await bShowedThenUnmounted();
    await until(a.refetch({ url: URL_A }));
    await advance(100);
    const seen: unknown[] = [];
    const other = new QueryClient();
    other.setQueryData(["other"], 1);
    await clientB.invalidateQueries({
      predicate: () => {
        seen.push(clientB.getQueryData(key), clientB.getQueryCache().find({ queryKey: key })?.state.data);
        // Another client's filter asking this one (two clients in one tab).
        other.getQueryCache().findAll({ predicate: () => (seen.push(clientB.getQueryData(key)), false) });
        return false;
      },
    });
    expect(seen).toEqual([{ n: 2 }, { n: 2 }, { n: 2 }]);
  });
});
