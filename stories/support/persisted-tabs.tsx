/**
 * Tabs of one browser under TanStack's persister: each tab's QueryClient inside
 * `PersistQueryClientProvider`, over one async storage that every tab shares (as they share
 * localStorage or IndexedDB). A reloaded tab is a new QueryClient restored from what the tabs
 * saved there, paused mutations included.
 */
import { createAsyncStoragePersister } from "@tanstack/query-async-storage-persister";
import { useMutationState, type MutationKey, type MutationState } from "@tanstack/react-query";
import { PersistQueryClientProvider } from "@tanstack/react-query-persist-client";
import { useMemo, useRef, type ReactNode } from "react";
import { SharedFetchProvider } from "../../src/index.ts";
import { shortOf, type Replica, type Replicas } from "./replicas.ts";

/** The browser's storage: an async key-value store, one per browser, read and written by every tab. */
export type BrowserStorage = {
  items: Map<string, string>;
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  /** Called after each write: a scenario waits for what a persister saved, not for time. */
  onWrite(listener: () => void): () => void;
};

export function browserStorage(): BrowserStorage {
  const items = new Map<string, string>();
  const listeners = new Set<() => void>();
  const wrote = () => listeners.forEach((l) => l());
  return {
    items,
    getItem: async (key) => items.get(key) ?? null,
    setItem: async (key, value) => void (items.set(key, value), wrote()),
    removeItem: async (key) => void (items.delete(key), wrote()),
    onWrite(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** How many paused mutations the persisted client in `storage` holds (0 when none was saved). */
export function pausedSaved(storage: BrowserStorage): number {
  const raw = [...storage.items.values()][0];
  if (!raw) return 0;
  const saved = JSON.parse(raw) as { clientState?: { mutations?: { state?: { isPaused?: boolean } }[] } };
  return (saved.clientState?.mutations ?? []).filter((m) => m.state?.isPaused === true).length;
}

/**
 * One tab: its QueryClient restored from `storage` by `PersistQueryClientProvider` (a first load
 * finds nothing), then `resumePausedMutations()`, as TanStack's docs do for persisted mutations
 * (offline, it resumes nothing: the client resumes them itself when the browser is back online).
 */
export function PersistedTab({
  world,
  replica,
  storage,
  children,
}: {
  world: Replicas;
  replica: Replica;
  storage: BrowserStorage;
  children: ReactNode;
}) {
  const persister = useMemo(() => createAsyncStoragePersister({ storage, throttleTime: 0 }), [storage]);
  const client = replica.queryClient;
  const restored = () => {
    const paused = client
      .getMutationCache()
      .getAll()
      .filter((m) => m.state.isPaused).length;
    const who = shortOf(replica.name);
    if (paused > 0)
      world.narration.add({
        text: `${who}'s new QueryClient restored ${paused} paused mutation${paused === 1 ? "" : "s"} from the browser's storage (PersistQueryClientProvider) and calls resumePausedMutations()`,
        replica: who,
      });
    return client.resumePausedMutations();
  };
  return (
    <PersistQueryClientProvider client={client} persistOptions={{ persister }} onSuccess={restored}>
      <SharedFetchProvider store={replica.store}>{children}</SharedFetchProvider>
    </PersistQueryClientProvider>
  );
}

/** TanStack's own words: `status`, and `· paused` while isPaused ("pending · paused", "pending", "success"). */
function stateOf(state: MutationState): string {
  return state.isPaused ? `${state.status} · paused` : state.status;
}

/**
 * The tab's mutations of `mutationKey` as its QueryClient holds them (paused, pending, success), restored
 * ones included: data-mutation now, and data-mutations-seen every state shown, in order.
 */
export function MutationStatus({ mutationKey }: { mutationKey: MutationKey }) {
  const states = useMutationState({ filters: { mutationKey }, select: (m) => stateOf(m.state) });
  const shown = states.length === 0 ? "none" : states.join(", ");
  const seen = useRef<string[]>([]);
  if (seen.current.at(-1) !== shown) seen.current.push(shown); // eslint-disable-line react-hooks/refs
  return (
    <p
      style={{ margin: "0.5rem 0 0" }}
      data-mutation={shown}
      data-mutations-seen={seen.current.join(" > ")} /* eslint-disable-line react-hooks/refs */
    >
      mutation: <span data-testid="mutation">{shown}</span>
    </p>
  );
}
