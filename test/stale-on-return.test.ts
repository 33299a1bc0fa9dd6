/**
 * A return visit (the store created at once, as in Usage): the tab asks before its connectors'
 * initial sync, so before it can see what IndexedDB or the other tabs hold. A result persisted
 * longer ago than the ask's freshness demand (the hooks pass TanStack's staleTime) that loads then
 * must not pass for fresh: it is revalidated with one request. One within the demand is taken as
 * is, and a plain ensure (no demand) takes any result, as its contract says. A refetch asked then
 * wants a result written since its ask.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../src/index.ts";
import { registerConnector } from "../src/core/connectors.ts";
import { isFresh } from "../src/core/freshness.ts";

const req = { url: "https://api.example.test/return" };

function countingFetch(body: unknown) {
  const calls: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    calls.push(String(input));
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  return { calls, fetch };
}

/** The first visit: a replica records `body` for `req` at the current (faked) time; its doc's state. */
async function firstVisit(body: unknown): Promise<Uint8Array> {
  const doc = new Y.Doc();
  const store = createSharedFetchStore({ doc, fetch: countingFetch(body).fetch, locks: null });
  await expect(store.ensure(req)).resolves.toMatchObject({ status: "success", data: body });
  store.destroy();
  return Y.encodeStateAsUpdate(doc);
}

/** The return visit: a store still starting (its connector not synced), asked at once. */
function returnVisit(body: unknown) {
  const doc = new Y.Doc();
  let synced!: () => void;
  registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
  const host = countingFetch(body);
  const store = createSharedFetchStore({ doc, fetch: host.fetch, locks: null });
  return { doc, store, calls: host.calls, synced: () => synced() };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The first visit records { visit: 1 } at a faked time; `laterMs` after it, the return visit's
 * store starts. `load` applies what the first visit persisted, as IndexedDB's content arrives.
 */
async function visits(laterMs: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(1_000_000);
  const persisted = await firstVisit({ visit: 1 });
  vi.setSystemTime(1_000_000 + laterMs);
  const again = returnVisit({ visit: 2 });
  return { again, load: () => Y.applyUpdate(again.doc, persisted) };
}

/**
 * The ask, then the persisted result loading before the store is in sync: not taken (the key
 * pending, showing it), then one request once in sync, whose result answers the ask.
 */
async function revalidatedOnce(again: ReturnType<typeof returnVisit>, load: () => void, ask: () => Promise<unknown>) {
  let settled = false;
  const asked = ask().finally(() => (settled = true));
  load();
  await tick();
  expect(settled).toBe(false);
  expect(again.store.snapshot(req)).toMatchObject({ status: "pending", data: { visit: 1 } });
  again.synced();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { visit: 2 } });
  expect(again.calls).toHaveLength(1);
  again.store.destroy();
}

afterEach(() => void vi.useRealTimers());

describe("a return visit judges a persisted result by the ask's freshness demand", () => {
  it("older than the demand: not taken while loading, revalidated with one request once in sync", async () => {
    const { again, load } = await visits(5000); // staleTime 1 s
    await revalidatedOnce(again, load, () => again.store.ensure(req, { maxAgeMs: 1000 }));
  });

  it("within the demand: taken as is, no request", async () => {
    const { again, load } = await visits(200);
    const asked = again.store.ensure(req, { maxAgeMs: 1000 });
    load();
    again.synced();
    await expect(asked).resolves.toMatchObject({ status: "success", data: { visit: 1 } });
    expect(again.calls).toHaveLength(0);
    again.store.destroy();
  });

  // TanStack's isStaleByTime: stale once `updatedAt + staleTime <= now`. A ready store reads a result
  // exactly the demand old as stale (isFresh); the ask judged as of its time while starting must too.
  it("exactly as old as the demand: stale, as a ready store reads it, revalidated with one request", async () => {
    const { again, load } = await visits(1000); // staleTime 1 s
    expect(isFresh(1_000_000, 1_001_000, 1000)).toBe(false);
    await revalidatedOnce(again, load, () => again.store.ensure(req, { maxAgeMs: 1000 }));
  });

  it("a refetch asked while starting: the persisted result is not the newer revision it asked for", async () => {
    const { again, load } = await visits(50); // fresh by any staleTime, but older than the refetch
    await revalidatedOnce(again, load, () => again.store.refetch(req));
  });

  it("no demand (a plain ensure): any recorded result is taken, however old", async () => {
    const { again, load } = await visits(600_000);
    const asked = again.store.ensure(req);
    load();
    await expect(asked).resolves.toMatchObject({ status: "success", data: { visit: 1 } });
    expect(again.calls).toHaveLength(0);
    again.store.destroy();
  });
});
