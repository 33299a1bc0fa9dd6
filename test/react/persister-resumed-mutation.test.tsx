// @vitest-environment jsdom
/**
 * README, "Coming from TanStack Query", paused mutations resumed after a reload: a mutation made
 * offline pauses, TanStack's persister saves it to the storage every tab of the browser shares,
 * and each tab that reloads restores it and resumes it (`onSuccess={() => client.resumePausedMutations()}`).
 * With `sharedMutationFn` the resumed call is one POST across the tabs, named by what each tab
 * restores alike (the mutation's key and `submittedAt`): a tab that resumes while another's POST
 * runs joins it, one that resumes after it is answered by its recorded outcome. Plain TanStack
 * sends it once per tab. Two calls made offline with equal variables stay two POSTs.
 * Real Yjs docs, TanStack's persister over one in-memory async storage, a real HTTP server on 127.0.0.1.
 */
import { MutationObserver, onlineManager, QueryClient } from "@tanstack/react-query";
import { createAsyncStoragePersister } from "@tanstack/query-async-storage-persister";
import { persistQueryClientSave } from "@tanstack/react-query-persist-client";
import { act, cleanup, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sharedMutationFn, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { memoryStorage, persistingBrowser, resumingOrdersTab, type MemoryStorage, type OrderOptions } from "../harness/persister.tsx";
import { ordersHostForFile } from "../harness/orders-host.ts";
import { pause } from "../harness/side-by-side.tsx";

const host = ordersHostForFile();
const { posts } = host;
afterEach(() => {
  cleanup();
  onlineManager.setOnline(true);
});

type Kind = "shared" | "plain";
const sent = (kind: Kind) => posts.filter((p) => p.path === `/${kind}/orders`);

/** The app's mutation defaults for its orders, as TanStack's docs register them for persisted mutations. */
function orderDefaults(kind: Kind, store: SharedFetchStoreWithExtras): OrderOptions {
  const url = `${host.base}/${kind}/orders`;
  const post = (item: string) => ({ url, method: "POST", body: JSON.stringify({ item }) });
  return {
    mutationFn:
      kind === "shared"
        ? sharedMutationFn(store, post)
        : async (item: string) => (await fetch(url, { method: "POST", body: post(item).body })).json(),
  };
}

/** A visit while offline: each order pauses, the persister saves them, the tab closes. */
async function offlineVisit(b: ReturnType<typeof persistingBrowser>, kind: Kind, items: string[]) {
  onlineManager.setOnline(false);
  const client = new QueryClient();
  client.setMutationDefaults(["order"], orderDefaults(kind, b.tab()));
  for (const item of items) {
    void new MutationObserver<unknown, Error, string>(client, { mutationKey: ["order"] }).mutate(item).catch(() => {});
    await pause(3); // each its own submittedAt
  }
  expect(
    client
      .getMutationCache()
      .getAll()
      .map((m) => m.state.isPaused),
  ).toEqual(items.map(() => true));
  const persister = createAsyncStoragePersister({ storage: b.storage, throttleTime: 0 });
  // The persist client bundles its own query-core build: the same class, another declaration.
  await persistQueryClientSave({ queryClient: client as never, persister });
  client.getMutationCache().clear();
  onlineManager.setOnline(true);
}

/** A reloaded tab: restores the persisted cache from `storage` and resumes its paused mutations. */
function reloadedTab(b: ReturnType<typeof persistingBrowser>, kind: Kind, storage: MemoryStorage) {
  const store = b.tab();
  return resumingOrdersTab(store, storage, orderDefaults(kind, store));
}

/** What the browser's storage held when a tab read it: that tab restores it later (a slow tab). */
function copyOf(storage: MemoryStorage): MemoryStorage {
  const copy = memoryStorage();
  for (const [key, value] of storage.items) copy.items.set(key, value);
  copy.gate();
  return copy;
}

async function settled(tab: { states(): { status: string }[] }, count: number) {
  await waitFor(() => expect(tab.states().map((s) => s.status)).toEqual(Array(count).fill("success")));
}

describe("a paused mutation, persisted, restored and resumed by each tab that reloads", () => {
  it.each([
    ["shared", 1],
    ["plain", 2],
  ] as const)("%s: a tab that resumes after another tab's POST was answered (both restored it): %i POST", async (kind, expected) => {
    const b = persistingBrowser();
    await offlineVisit(b, kind, ["book"]);
    const slow = copyOf(b.storage);
    const first = reloadedTab(b, kind, b.storage);
    await settled(first, 1);
    const second = reloadedTab(b, kind, slow);
    act(() => slow.release());
    await settled(second, 1);
    await pause(50);
    expect(sent(kind)).toHaveLength(expected);
    if (kind === "shared") {
      // The second tab is answered by the first's recorded outcome.
      expect(second.states()[0]!.data).toEqual(first.states()[0]!.data);
      expect(sent(kind)[0]!.key).toMatch(/\S/);
    }
  });

  it.each([
    ["shared", 1],
    ["plain", 3],
  ] as const)("%s: three tabs resuming it at once: %i POST", async (kind, expected) => {
    const b = persistingBrowser();
    await offlineVisit(b, kind, ["book"]);
    b.storage.gate();
    const tabs = [0, 1, 2].map(() => reloadedTab(b, kind, b.storage));
    act(() => b.storage.release());
    for (const tab of tabs) await settled(tab, 1);
    await pause(50);
    expect(sent(kind)).toHaveLength(expected);
  });

  it.each([
    ["shared", 2],
    ["plain", 4],
  ] as const)(
    "%s: two orders made offline with equal variables, resumed by two tabs one after the other: %i POSTs",
    async (kind, expected) => {
      const b = persistingBrowser();
      await offlineVisit(b, kind, ["book", "book"]);
      const slow = copyOf(b.storage);
      const first = reloadedTab(b, kind, b.storage);
      await settled(first, 2);
      const second = reloadedTab(b, kind, slow);
      act(() => slow.release());
      await settled(second, 2);
      await pause(50);
      expect(sent(kind)).toHaveLength(expected);
      // Two calls, each with an Idempotency-Key of its own.
      if (kind === "shared") expect(new Set(sent(kind).map((p) => p.key)).size).toBe(2);
    },
  );
});
