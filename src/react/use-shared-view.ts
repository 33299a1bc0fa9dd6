import { useQueryClient, type QueryKey, type RefetchOptions } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useSyncExternalStore } from "react";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { ClaimView, SharedFetchStore, SharedRequest, Snapshot } from "../core/types.ts";
import { REFETCH_META } from "./demand.ts";
import { useSharedFetchStore } from "./provider.tsx";
import { deliveredRev, isRunning } from "./shared-query-options.ts";

/** What the hooks add to TanStack's result: the view across replicas. */
export type SharedView = {
  /** Who works on newer data than what is recorded, in any replica, while someone does. */
  claim: ClaimView | undefined;
  /** This tab's query function runs, or any replica works on the key (TanStack's isFetching is this tab's alone). */
  isFetchingAnywhere: boolean;
};

const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;

/** What the hooks show of a store snapshot: the claim and the recorded data (the status is TanStack's). */
type ViewState = Pick<Snapshot, "claim" | "data">;

/**
 * A getSnapshot for useSyncExternalStore; the claim it last saw, which the pane reads (from then
 * on a claim alone changes the snapshot); `readAll` for a pane that asked to render for everything.
 */
type View = { get: () => ViewState; claim: () => ClaimView | undefined; readAll: () => void };

/**
 * A getSnapshot whose value keeps its identity until something the pane shows changes: the claim
 * (only once the pane has read it: `claimRead`, as TanStack renders for the result properties a
 * component reads), or the recorded data. Not the rest of the snapshot: this tab's own ask (idle
 * → pending while its claim waits for the locks) renders nothing. Nor, while `delivering` (this
 * tab's own query function runs and will hand the result to TanStack, whose update renders it),
 * the data (unless nothing is shown yet and what is recorded is older than what it waits for), or
 * a claim that ended as that result arrived. Stable across reads of one store state, as
 * useSyncExternalStore requires.
 */
function viewOf(read: () => Snapshot, delivering: () => boolean): View {
  let last: ViewState | undefined;
  let claimRead = false;
  // The claim as of the last read, where `last` may keep an older one for a pane that never read it.
  let claim: ClaimView | undefined;
  const next = (): ViewState => {
    const snap = read();
    if (last && delivering()) {
      const data = last.data === undefined && snap.status === "pending" ? snap.data : last.data;
      // Nothing shown yet, and what is recorded is not what the query function waits for (it is
      // older than its demand, e.g. persisted on a past visit): shown meanwhile, as initialData
      // would have shown it had the store been in sync at the first render.
      return { claim: snap.claim === undefined && snap.data !== last.data ? claim : snap.claim, data };
    }
    return { claim: snap.claim, data: snap.data };
  };
  return {
    get: () => {
      const state = next();
      claim = state.claim;
      if (last && state.data === last.data && (sameClaim(last.claim, state.claim) || !claimRead)) return last;
      return (last = state);
    },
    claim: () => {
      claimRead = true;
      return claim;
    },
    readAll: () => void (claimRead = true),
  };
}

function sameClaim(a: ClaimView | undefined, b: ClaimView | undefined): boolean {
  return a === b || (!!a && !!b && a.replicaId === b.replicaId && a.mine === b.mine && a.stale === b.stale);
}

/** The store's data object last set into each query by the effect below. */
const handedOver = new WeakMap<object, unknown>();
const noop = () => {};

/** How the view reads one kind of work from the store (fetches or programs). */
export type ViewBinding = {
  /** Stable id of the work (its query hash), or null when disabled. */
  id: string | null;
  snapshot(): Snapshot;
  subscribe(listener: () => void): () => void;
  /** The recorded result's revision and writer's `at`. */
  info(): { rev: number; at?: number } | undefined;
};

export function fetchBinding(store: SharedFetchStore, id: string | null, req: SharedRequest | null): ViewBinding {
  const extras = store as Partial<SharedFetchStoreExtras>;
  return {
    id: req ? id : null,
    snapshot: () => store.snapshot(req!),
    subscribe: (listener) => store.subscribe(req!, listener),
    info: () => extras.resultInfo?.call(store, req!),
  };
}

/** The query's options the view reads: its key, and which result properties render it (TanStack's option). */
export type ViewOptions = { queryKey: QueryKey; notifyOnChangeProps?: unknown };

/**
 * TanStack's result plus the cross-replica view. Results other replicas record reach this tab's
 * cache with their writer's `at` as `dataUpdatedAt` (so staleness is the recorded result's age),
 * except while this tab's own query function runs: it delivers them itself. The result keeps
 * TanStack's property tracking (each field is a getter onto TanStack's result).
 */
export function useSharedView<R extends { isFetching: boolean; refetch: (options?: RefetchOptions) => Promise<unknown> }>(
  query: R,
  { queryKey, notifyOnChangeProps }: ViewOptions,
  binding: ViewBinding,
): R & SharedView {
  const client = useQueryClient();
  const store = useSharedFetchStore();
  const { id } = binding;
  // The query functions count their runs under the key's JSON (shared-query-options' trackRunning).
  const runId = JSON.stringify(queryKey);
  // Keyed on `id` alone: the binding's closures change identity on every render.
  const subscribe = useCallback((listener: () => void) => (id === null ? noop : binding.subscribe(listener)), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const view = useMemo(
    () =>
      viewOf(
        () => (id === null ? IDLE : binding.snapshot()),
        () => isRunning(store, runId),
      ),
    [id, runId, store], // eslint-disable-line react-hooks/exhaustive-deps
  );
  if ((typeof notifyOnChangeProps === "function" ? notifyOnChangeProps() : notifyOnChangeProps) === "all") view.readAll();
  const snap = useSyncExternalStore(subscribe, view.get, view.get);
  useEffect(() => {
    if (id === null || snap.data === undefined) return;
    const cached = client.getQueryCache().find({ queryKey, exact: true });
    const info = binding.info();
    if (!cached || !info) return;
    const { state } = cached;
    // While a fetch runs, the data it brings is delivered by it; only a query showing nothing yet
    // takes the older data recorded meanwhile (stale-while-revalidate).
    if (state.fetchStatus !== "idle" && state.data !== undefined) return;
    // A recorded outcome dated at the epoch was invalidated for every replica (the devtools'
    // invalidate): stale here too, as invalidateQueries marks it; the next mount, focus or poll fetches.
    if (info.at === 0 && state.dataUpdatedAt > 0 && !state.isInvalidated) {
      void client.invalidateQueries({ queryKey, exact: true, refetchType: "none" });
      return;
    }
    const delivered = deliveredRev.get(cached);
    const at = info.at ?? 0;
    if (delivered === undefined) {
      // Data from outside the store (hydration, initialData, setQueryData): keep it unless ours is newer.
      if (state.data !== undefined && at <= state.dataUpdatedAt) return;
    } else if (
      info.rev < delivered ||
      (info.rev === delivered && ((state.dataUpdatedAt === at && state.data === snap.data) || handedOver.get(cached) === snap.data))
    )
      return;
    // Same revision, other data: two replicas recorded it in a partition and the doc kept the other one.
    deliveredRev.set(cached, info.rev);
    // Remembered by identity (TanStack's structural sharing keeps its own copy): a later snapshot
    // change of the same record (a claim appearing) must not set it again, as each set restarts the
    // query's refetchInterval timer, and a tab whose timer restarts whenever another tab claims never polls.
    handedOver.set(cached, snap.data);
    client.setQueryData(queryKey, snap.data, { updatedAt: at });
  }, [id, snap, client, queryKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const refetch = useCallback((options?: RefetchOptions) => query.refetch({ ...options, meta: REFETCH_META } as RefetchOptions), [query]);
  return useMemo(() => {
    const result = {} as R & SharedView;
    const own = new Set(["refetch", "claim", "isFetchingAnywhere"]);
    for (const name of Object.keys(query))
      if (!own.has(name)) Object.defineProperty(result, name, { enumerable: true, get: () => query[name as keyof R] });
    Object.defineProperty(result, "refetch", { enumerable: true, value: refetch });
    // The claim as last seen, read at access (a pane that never read it was not rendered for it).
    Object.defineProperty(result, "claim", { enumerable: true, get: view.claim });
    Object.defineProperty(result, "isFetchingAnywhere", { enumerable: true, get: () => query.isFetching || view.claim() !== undefined });
    return result;
    // A new result for each change of the view, as TanStack's result is new for each change.
  }, [query, snap, refetch, view]); // eslint-disable-line react-hooks/exhaustive-deps
}
