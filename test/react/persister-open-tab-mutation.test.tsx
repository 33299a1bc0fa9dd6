// @vitest-environment jsdom
/**
 * README, "A paused mutation resumed after a reload is one request across the tabs", the tab that
 * stayed open: tab A, offline, adds an order (`useMutation` pauses it before its first run; A's
 * persister saves it), tab B reloads while offline and restores it from the storage every tab
 * shares; back online both resume it. A's own call is named as B's restored copy is, so the two
 * join one POST (plain TanStack: one POST per tab), and so does a call A paused only after a failure
 * (its retry is named from then on). Two calls A paused at different moments stay
 * two POSTs, a call never paused is sent as before, and useMutation's own retry still sends again.
 * Real Yjs docs, TanStack's persister over one in-memory async storage, a real HTTP server on 127.0.0.1.
 */
import { onlineManager } from "@tanstack/react-query";
import type { OrderOptions } from "../harness/persister.tsx";
import { act, cleanup, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sharedMutationFn, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { persistedMutations, persistingBrowser, resumingOrdersTab } from "../harness/persister.tsx";
import { ordersHostForFile } from "../harness/orders-host.ts";
import { pause } from "../harness/side-by-side.tsx";

const host = ordersHostForFile();
const { posts } = host;
afterEach(() => {
  cleanup();
  act(() => onlineManager.setOnline(true));
});

type Kind = "shared" | "plain";
const sent = (kind: Kind) => posts.filter((p) => p.path === `/${kind}/orders`);

/** A tab on the browser's storage whose orders are `kind` POSTs to the host; it resumes what it restores. */
function openTab(b: ReturnType<typeof persistingBrowser>, kind: Kind, retry = 0, options: OrderOptions = {}) {
  const store: SharedFetchStoreWithExtras = b.tab();
  const url = `${host.base}/${kind}/orders`;
  const post = (item: string) => ({ url, method: "POST", body: JSON.stringify({ item }) });
  return resumingOrdersTab(store, b.storage, {
    retry,
    retryDelay: 0,
    mutationFn:
      kind === "shared"
        ? sharedMutationFn(store, post)
        : async (item: string) => {
            const res = await fetch(url, { method: "POST", body: post(item).body });
            if (!res.ok) throw new Error(`HTTP ${res.status}`);
            return res.json();
          },
    ...options,
  });
}

type Tab = ReturnType<typeof openTab>;

async function settled(tab: Tab, statuses: string[]) {
  await waitFor(() => expect(tab.states().map((s) => s.status)).toEqual(statuses));
}

/** Offline: A orders `items` (each paused, 3 ms apart), its persister saves them; B reloads and restores them. */
async function pausedInAThenRestoredInB(kind: Kind, items: string[]) {
  const b = persistingBrowser();
  const a = openTab(b, kind);
  await pause(10); // A restored (nothing yet) and mounted
  act(() => onlineManager.setOnline(false));
  for (const item of items) {
    a.order(item);
    await pause(3);
  }
  await waitFor(() => expect(persistedMutations(b.storage).length).toBe(items.length));
  expect(a.states().map((s) => s.isPaused)).toEqual(items.map(() => true));
  const reloaded = openTab(b, kind);
  await waitFor(() => expect(reloaded.states().map((s) => s.isPaused)).toEqual(items.map(() => true)));
  return { a, reloaded };
}

describe("a mutation paused in a tab that stays open, restored by a tab that reloads meanwhile", () => {
  it.each([
    ["shared", 1],
    ["plain", 2],
  ] as const)("%s: both resume it when back online: %i POST", async (kind, expected) => {
    const { a, reloaded } = await pausedInAThenRestoredInB(kind, ["book"]);
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success"]);
    await settled(reloaded, ["success"]);
    await pause(50);
    expect(sent(kind)).toHaveLength(expected);
    // One call, one outcome in both tabs.
    if (kind === "shared") expect(reloaded.states()[0]!.data).toEqual(a.states()[0]!.data);
  });

  it.each([
    ["shared", 2],
    ["plain", 4],
  ] as const)("%s: two orders with equal variables paused at different moments stay two: %i POSTs", async (kind, expected) => {
    const { a, reloaded } = await pausedInAThenRestoredInB(kind, ["book", "book"]);
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success", "success"]);
    await settled(reloaded, ["success", "success"]);
    await pause(50);
    expect(sent(kind)).toHaveLength(expected);
    if (kind === "shared") {
      // Two calls, each with an Idempotency-Key of its own, each the same call in both tabs.
      expect(new Set(sent(kind).map((p) => p.key)).size).toBe(2);
      expect(reloaded.states().map((s) => s.data)).toEqual(a.states().map((s) => s.data));
      expect(new Set(a.states().map((s) => JSON.stringify(s.data))).size).toBe(2);
    }
  });

  it("two orders with equal variables paused in the open tab alone, resumed together: 2 POSTs", async () => {
    const b = persistingBrowser();
    const a = openTab(b, "shared");
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await pause(3);
    a.order("book");
    await pause(3);
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success", "success"]);
    await pause(50);
    expect(sent("shared")).toHaveLength(2);
    expect(new Set(sent("shared").map((p) => p.key)).size).toBe(2);
  });

  it("a paused call that fails is sent again by useMutation's retry, with a new Idempotency-Key", async () => {
    const b = persistingBrowser();
    const a = openTab(b, "shared", 1);
    await pause(10);
    act(() => onlineManager.setOnline(false));
    a.order("book");
    await pause(3);
    host.failing = 1;
    act(() => onlineManager.setOnline(true));
    await settled(a, ["success"]);
    expect(sent("shared")).toHaveLength(2);
    const [first, second] = sent("shared").map((p) => p.key);
    expect(first).toBeTruthy();
    expect(second).not.toBe(first);
  });

  it.each([
    ["shared", 1],
    ["plain", 2],
  ] as const)(
    "%s: a call A paused only after a failure (online, failed, offline before its retry), restored by B: back online, %i POST",
    async (kind, expected) => {
      const b = persistingBrowser();
      const a = openTab(b, kind, 1, { retryDelay: () => (act(() => onlineManager.setOnline(false)), 0) });
      await pause(10);
      host.failing = 1;
      a.order("book");
      await waitFor(() => expect(a.states()[0]).toMatchObject({ isPaused: true, failureCount: 1 }));
      await waitFor(() => expect(persistedMutations(b.storage)).toHaveLength(1));
      const reloaded = openTab(b, kind);
      await waitFor(() => expect(reloaded.states().map((s) => s.isPaused)).toEqual([true]));
      const failed = sent(kind).length;
      act(() => onlineManager.setOnline(true));
      await settled(a, ["success"]);
      await settled(reloaded, ["success"]);
      await pause(50);
      // The failed attempt's error answers neither: the call is sent once more, for both tabs.
      expect(failed).toBe(1);
      expect(sent(kind).length - failed).toBe(expected);
      if (kind === "shared") {
        expect(reloaded.states()[0]!.data).toEqual(a.states()[0]!.data);
        expect(new Set(sent(kind).map((p) => p.key)).size).toBe(2);
      }
    },
  );

  it("calls never paused are sent as before: unnamed, identical ones in flight joined, a later one sent again", async () => {
    const b = persistingBrowser();
    const a = openTab(b, "shared");
    await pause(10);
    const ensure = vi.spyOn(a.store, "ensure");
    a.order("book");
    a.order("book");
    await settled(a, ["success", "success"]);
    expect(sent("shared")).toHaveLength(1);
    a.order("book");
    await settled(a, ["success", "success", "success"]);
    expect(sent("shared")).toHaveLength(2);
    expect(new Set(sent("shared").map((p) => p.key)).size).toBe(2);
    expect(ensure.mock.calls.filter(([req]) => typeof req === "object" && "callId" in req)).toEqual([]);
  });
});
