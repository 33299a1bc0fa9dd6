/**
 * TanStack's persister around a tab: PersistQueryClientProvider with createAsyncStoragePersister
 * over an in-memory async storage, one per browser (its tabs share it, as they share
 * localStorage). `gate` holds every read of the storage until released: tabs caught restoring.
 */
import { MutationObserver, QueryClient, useQuery, type MutationObserverOptions } from "@tanstack/react-query";
import { createAsyncStoragePersister } from "@tanstack/query-async-storage-persister";
import { PersistQueryClientProvider, type PersistQueryClientOptions } from "@tanstack/react-query-persist-client";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { SharedFetchProvider, sharedQueryOptions, type SharedFetchStoreWithExtras } from "../../src/index.ts";
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

/**
 * One tab: a new QueryClient restored from `storage`, around a provider of `store`. With `resume`,
 * it resumes the paused mutations it restores (the provider's onSuccess, as TanStack's docs do).
 */
export function persistedTab(
  store: SharedFetchStoreWithExtras,
  storage: MemoryStorage,
  node: ReactNode,
  extra: PersistExtra = {},
  resume = false,
) {
  const client = new QueryClient({ defaultOptions: { queries: { gcTime: DAY } } });
  const persister = createAsyncStoragePersister({ storage, throttleTime: 0 });
  return {
    client,
    element: (
      <PersistQueryClientProvider
        client={client}
        persistOptions={{ persister, maxAge: DAY, ...extra }}
        onSuccess={resume ? () => void client.resumePausedMutations() : undefined}
      >
        <SharedFetchProvider store={store}>{node}</SharedFetchProvider>
      </PersistQueryClientProvider>
    ),
  };
}

/**
 * A pane of `useQuery(sharedQueryOptions(…))` of `href` in a tab restored from `storage`, rendered;
 * logs "<status> <fetchStatus> <n>" each time what it shows changes.
 */
export function loggedPane(store: SharedFetchStoreWithExtras, storage: MemoryStorage, href: string, options: object, extra?: PersistExtra) {
  const log: string[] = [];
  function Pane() {
    const q = useQuery(sharedQueryOptions<{ n: number }>(store, href, options));
    const shown = `${q.status} ${q.fetchStatus} ${q.data?.n ?? "-"}`;
    if (log.at(-1) !== shown) log.push(shown);
    return null;
  }
  const { element, client } = persistedTab(store, storage, <Pane />, extra);
  const view = render(element);
  return { log, client, unmount: view.unmount, last: () => log.at(-1) };
}

export type OrderOptions = Omit<MutationObserverOptions<unknown, Error, string>, "mutationKey">;

/**
 * A tab rendered at once that orders: its mutation defaults for the key ["order"] registered before
 * it restores (TanStack's docs for persisted mutations), and it resumes the paused orders it restores.
 * `order(item)` makes a call; `states()` are its mutations' states.
 */
export function resumingOrdersTab(store: SharedFetchStoreWithExtras, storage: MemoryStorage, defaults: OrderOptions) {
  const { client, element } = persistedTab(store, storage, null, {}, true);
  client.setMutationDefaults(["order"], defaults);
  render(element);
  const states = () =>
    client
      .getMutationCache()
      .getAll()
      .map((m) => m.state);
  const order = (item: string, options: OrderOptions = {}) =>
    void new MutationObserver<unknown, Error, string>(client, { mutationKey: ["order"], ...options }).mutate(item).catch(() => {});
  return { client, store, states, order };
}

/** The persisted client's mutations, as stored. */
export function persistedMutations(storage: MemoryStorage): { state: { variables: unknown } }[] {
  const raw = [...storage.items.values()][0];
  return raw ? (JSON.parse(raw) as { clientState: { mutations: never[] } }).clientState.mutations : [];
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
