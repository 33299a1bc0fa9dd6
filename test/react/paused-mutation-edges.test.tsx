// @vitest-environment jsdom
/**
 * README, "A paused mutation resumed after a reload is one request across the tabs": the edges of
 * naming a call a tab still open paused. A call queued behind its `scope`, networkMode
 * "offlineFirst" and "always", a call paused after a failure (named from its retry on), a retry
 * never paused (unnamed), equal calls resumed together beside a retry or a call never paused.
 * Real Yjs docs, TanStack's persister over one in-memory async storage, a real HTTP server on 127.0.0.1.
 */
import { onlineManager, type MutationOptions } from "@tanstack/react-query";
import { act, cleanup, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedMutationFn, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { memoryStorage, persistedMutations, persistingBrowser, resumingOrdersTab } from "../harness/persister.tsx";
import { ordersHostForFile } from "../harness/orders-host.ts";
import { pause } from "../harness/side-by-side.tsx";

const host = ordersHostForFile();
const { posts } = host;
afterEach(() => {
  host.release();
  cleanup();
  act(() => onlineManager.setOnline(true));
  vi.restoreAllMocks();
});

type Browser = ReturnType<typeof persistingBrowser>;
type Defaults = Omit<MutationOptions<unknown, Error, string>, "mutationFn" | "mutationKey">;

/** A tab on the browser's storage whose orders are shared POSTs to the host; it resumes what it restores. */
function openTab(b: Browser, defaults: Defaults = {}) {
  const store: SharedFetchStoreWithExtras = b.tab();
  const mutationFn = sharedMutationFn(store, (item: string) => ({
    url: `${host.base}/orders`,
    method: "POST",
    body: JSON.stringify({ item }),
  }));
  return resumingOrdersTab(store, b.storage, { retry: 0, retryDelay: 0, mutationFn, ...defaults });
}
type Tab = ReturnType<typeof openTab>;

const statuses = async (tab: Tab, expected: string[], timeout = 1_000) =>
  waitFor(() => expect(tab.states().map((s) => s.status)).toEqual(expected), { timeout });
const keys = () => new Set(posts.map((p) => p.key)).size;

/** A retryDelay that takes the browser offline before the first retry only, so that retry waits paused. */
function offlineOnce() {
  let first = true;
  return () => {
    if (first) act(() => onlineManager.setOnline(false));
    first = false;
    return 0;
  };
}

describe("a call queued behind its scope", () => {
  it("saved while queued and restored by a tab that reloads: one POST for it across the tabs", async () => {
    const b = persistingBrowser();
    const a = openTab(b, { scope: { id: "orders" } });
    await pause(10);
    host.held = "first";
    a.order("first");
    await waitFor(() => expect(posts).toHaveLength(1));
    a.order("queued");
    await waitFor(() => expect(persistedMutations(b.storage).map((m) => m.state.variables)).toEqual(["queued"]));
    const reloaded = openTab(b, { scope: { id: "orders" } });
    await statuses(reloaded, ["success"]);
    host.release();
    await statuses(a, ["success", "success"]);
    await pause(50);
    expect(posts.map((p) => p.body)).toEqual(['{"item":"first"}', '{"item":"queued"}']);
  });
});

describe("network modes that run a call offline", () => {
  it.each(["offlineFirst", "always"] as const)("%s: a call made offline runs at once, unnamed, as before", async (networkMode) => {
    const b = persistingBrowser();
    const a = openTab(b, { networkMode });
    await pause(10);
    const ensure = vi.spyOn(a.store, "ensure");
    act(() => onlineManager.setOnline(false));
    a.order("book");
    a.order("book");
    await statuses(a, ["success", "success"]);
    expect(posts).toHaveLength(1);
    expect(ensure.mock.calls.filter(([req]) => typeof req === "object" && "callId" in req)).toEqual([]);
  });
});

describe("a call paused after a failure", () => {
  it("retry 3: failed once online, paused offline, its retry is named as a restored copy would be and sent, with a new Idempotency-Key", async () => {
    const b = persistingBrowser();
    const a = openTab(b, { retry: 3, retryDelay: () => (act(() => onlineManager.setOnline(false)), 0) });
    await pause(10);
    const ensure = vi.spyOn(a.store, "ensure");
    host.failing = 1;
    a.order("book");
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 1 }));
    act(() => onlineManager.setOnline(true));
    await statuses(a, ["success"]);
    // The failed attempt's recorded error does not answer the named retry: it is sent.
    expect(posts).toHaveLength(2);
    expect(keys()).toBe(2);
    const named = ensure.mock.calls.filter(([req]) => typeof req === "object" && "callId" in req);
    expect(named).toHaveLength(1);
  });

  it("a retry never paused is sent as before: unnamed, a new Idempotency-Key", async () => {
    const b = persistingBrowser();
    const a = openTab(b, { retry: 3, retryDelay: 0 });
    await pause(10);
    const ensure = vi.spyOn(a.store, "ensure");
    const refetch = vi.spyOn(a.store, "refetch");
    host.failing = 1;
    a.order("book");
    await statuses(a, ["success"]);
    expect(posts).toHaveLength(2);
    expect(keys()).toBe(2);
    expect(refetch).toHaveBeenCalledTimes(2);
    const named = [...ensure.mock.calls, ...refetch.mock.calls].filter(([req]) => typeof req === "object" && "callId" in req);
    expect(named).toEqual([]);
  });

  it("failed again after it was named: its next retry is a new revision of the named call, sent", async () => {
    const b = persistingBrowser();
    const a = openTab(b, { retry: 3, retryDelay: () => (act(() => onlineManager.setOnline(false)), 0) });
    await pause(10);
    host.failing = 2;
    a.order("book");
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 1 }));
    act(() => onlineManager.setOnline(true));
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 2 }));
    act(() => onlineManager.setOnline(true));
    await statuses(a, ["success"]);
    expect(posts).toHaveLength(3);
    expect(keys()).toBe(3);
  });
});

describe("a call named before its first run, failed, then paused before its retry", () => {
  it("restored by a tab that reloads: the recorded error answers neither copy, one POST for the retry, one outcome", async () => {
    const b = persistingBrowser();
    const a = openTab(b, { retry: 2, retryDelay: offlineOnce() });
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book"); // paused before its first run: named
    await pause(3);
    host.failing = 1;
    act(() => onlineManager.setOnline(true)); // sent named, 503, its retry paused offline
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 1 }));
    await waitFor(() => expect(persistedMutations(b.storage)).toHaveLength(1));
    const reloaded = openTab(b);
    await waitFor(() => expect(reloaded.states().map((s) => s.isPaused)).toEqual([true]));
    act(() => onlineManager.setOnline(true));
    await statuses(a, ["success"]);
    await statuses(reloaded, ["success"]);
    await pause(50);
    expect(posts).toHaveLength(2);
    expect(reloaded.states()[0]!.data).toEqual(a.states()[0]!.data);
  });
});

describe("a copy saved while its call waited for its retry, restored once that retry failed", () => {
  // The storage as the persister left it while the call waited: a tab that reloads before the
  // persister saves again (its throttle) restores that copy.
  it.each([
    ["paused only after a failure", false],
    ["named before its first run", true],
  ])("%s: the copy takes the retry's error as its own attempt, then retries as TanStack retries it", async (_, namedFirst) => {
    const b = persistingBrowser();
    const a = openTab(b, { retry: 1, retryDelay: offlineOnce() });
    await pause(10);
    host.failing = 9;
    if (namedFirst) act(() => onlineManager.setOnline(false));
    a.order("book");
    if (namedFirst) await pause(3);
    if (namedFirst) act(() => onlineManager.setOnline(true));
    // Sent, 503, its retry paused offline.
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 1 }));
    await waitFor(() => expect(persistedMutations(b.storage)).toHaveLength(1));
    const saved = memoryStorage();
    for (const [key, value] of b.storage.items) saved.items.set(key, value);
    act(() => onlineManager.setOnline(true));
    await statuses(a, ["error"]);
    expect(posts).toHaveLength(2);
    const reloaded = openTab({ ...b, storage: saved }, { retry: 1, retryDelay: 0 });
    await statuses(reloaded, ["error"]);
    await pause(50);
    // Its resumed attempt is the retry that failed: only its own retry (restarted by TanStack) is sent.
    expect(posts).toHaveLength(3);
  });
});

describe("equal calls resumed together", () => {
  it("three, one a retry of a named call: three POSTs, each its own Idempotency-Key", async () => {
    const b = persistingBrowser();
    let first = true;
    const a = openTab(b, {
      retry: 1,
      retryDelay: () => {
        if (first) act(() => onlineManager.setOnline(false));
        first = false;
        return 0;
      },
    });
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book"); // paused before its first run: named
    await pause(3);
    host.failing = 1;
    act(() => onlineManager.setOnline(true)); // sent, 503, its retry paused offline
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 1 }));
    a.order("book");
    await pause(3);
    a.order("book");
    await pause(3);
    act(() => onlineManager.setOnline(true));
    await statuses(a, ["success", "success", "success"]);
    await pause(50);
    expect(posts).toHaveLength(4);
    expect(keys()).toBe(4);
  });

  it("one resumed while an equal named call waits for its retry, restored by a tab that reloads: one POST for it", async () => {
    const b = persistingBrowser();
    // The wait only has to outlast the steps below: nothing is asserted of its length.
    const a = openTab(b, { retry: 1, retryDelay: 1_500 });
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await pause(3);
    host.failing = 1;
    act(() => onlineManager.setOnline(true)); // sent, 503: waits for its retry, pending and unpaused
    await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: false, failureCount: 1 }));
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await waitFor(() => expect(persistedMutations(b.storage)).toHaveLength(1));
    const reloaded = openTab(b);
    await waitFor(() => expect(reloaded.states().map((s) => s.isPaused)).toEqual([true]));
    act(() => onlineManager.setOnline(true));
    await statuses(reloaded, ["success"]);
    expect(posts).toHaveLength(2);
    await statuses(a, ["success", "success"], 5_000);
    await pause(50);
    expect(posts).toHaveLength(3);
    expect(keys()).toBe(3);
    expect(reloaded.states()[0]!.data).toEqual(a.states()[1]!.data);
  });

  it("one restored, one never paused: two POSTs, the restored one the open tab's call", async () => {
    const b = persistingBrowser();
    const a = openTab(b);
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await waitFor(() => expect(persistedMutations(b.storage)).toHaveLength(1));
    const reloaded = openTab(b);
    await waitFor(() => expect(reloaded.states().map((s) => s.isPaused)).toEqual([true]));
    act(() => {
      onlineManager.setOnline(true);
      reloaded.order("book");
    });
    await statuses(a, ["success"]);
    await statuses(reloaded, ["success", "success"]);
    await pause(50);
    expect(posts).toHaveLength(2);
    expect(keys()).toBe(2);
    // One outcome for the call both tabs hold; the new call has its own.
    const [restored, made] = reloaded.states().map((s) => s.data);
    expect(restored).toEqual(a.states()[0]!.data);
    expect(made).not.toEqual(restored);
  });
});
