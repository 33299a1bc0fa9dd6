/**
 * TanStack's persister around a tab: PersistQueryClientProvider with createAsyncStoragePersister
 * over an in-memory async storage, one per browser (its tabs share it, as they share
 * localStorage). `gate` holds every read of the storage until released: tabs caught restoring.
 */
import { QueryClient } from "@tanstack/react-query";
import { createAsyncStoragePersister } from "@tanstack/query-async-storage-persister";
import { PersistQueryClientProvider, type PersistQueryClientOptions } from "@tanstack/react-query-persist-client";
import type { ReactNode } from "react";
import { SharedFetchProvider, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { cluster } from "./replicas.ts";

export type MemoryStorage = {
  items: Map<string, string>;
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  /** Holds reads until `release()`. */
  gate(): void;
  release(): void;
};

export function memoryStorage(): MemoryStorage {
  const items = new Map<string, string>();
  let held: Promise<void> | null = null;
  let open = () => {};
  return {
    items,
    getItem: async (key) => {
      if (held) await held;
      return items.get(key) ?? null;
    },
    setItem: async (key, value) => void items.set(key, value),
    removeItem: async (key) => void items.delete(key),
    gate: () => void (held = new Promise<void>((resolve) => (open = resolve))),
    release: () => {
      held = null;
      open();
    },
  };
}

/** A day, as TanStack's docs set gcTime beside a persister's maxAge. */
export const DAY = 86_400_000;

export type PersistExtra = Omit<PersistQueryClientOptions, "queryClient" | "persister">;

/** One tab: a new QueryClient restored from `storage`, around a provider of `store`. */
export function persistedTab(store: SharedFetchStoreWithExtras, storage: MemoryStorage, node: ReactNode, extra: PersistExtra = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { gcTime: DAY } } });
  const persister = createAsyncStoragePersister({ storage, throttleTime: 0 });
  return {
    client,
    element: (
      <PersistQueryClientProvider client={client} persistOptions={{ persister, maxAge: DAY, ...extra }}>
        <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
      </PersistQueryClientProvider>
    ),
  };
}

/** The persisted client's queries, as stored. */
export function persistedQueries(
  storage: MemoryStorage,
): { queryKey: unknown[]; state: { data?: unknown; dataUpdatedAt: number; status: string } }[] {
  const raw = [...storage.items.values()][0];
  return raw ? (JSON.parse(raw) as { clientState: { queries: never[] } }).clientState.queries : [];
}

/**
 * One browser: its tabs' stores on linked docs (one lock manager), its persister's storage.
 * `tab(from)` opens a tab on the doc `from`'s IndexedDB holds (a reload); `device()` joins from another browser.
 */
export function persistingBrowser() {
  const c = cluster(0, { settleMs: 0 });
  const locks = new FakeLocks();
  let tabs = 0;
  const storage = memoryStorage();
  const tab = (from?: SharedFetchStoreWithExtras) =>
    c.join({ locks: locks.forTab(`t${++tabs}`), browserId: "browser-1", fetch: globalThis.fetch }, from && c.docOf(from));
  const device = () => c.join({ locks: new FakeLocks().forTab("d"), browserId: "browser-2", fetch: globalThis.fetch });
  return { c, storage, tab, device };
}
