"use client";
// A client module (React Server Components): hooks.
import { useQueryClient, type QueryKey, type RefetchOptions } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useSyncExternalStore } from "react";
import { sameClaim } from "../core/snapshot.ts";
import type { ClaimView, SharedFetchStore, SharedRequest, Snapshot } from "../core/types.ts";
import { holdBridge } from "./bridge.ts";
import { REFETCH_META } from "./demand.ts";
import { useSharedFetchStore } from "./provider.tsx";
import { isRunning } from "./shared-query-fn.ts";

/** What the hooks add to TanStack's result: the view across replicas. */
export type SharedView = {
  /** Who works on newer data than what is recorded, in any replica, while someone does. */
  claim: ClaimView | undefined;
  /** This tab's query function runs, or any replica works on the key (TanStack's isFetching is this tab's alone). */
  isFetchingAnywhere: boolean;
};

const IDLE: Snapshot = Object.freeze({ status: "idle" }) as Snapshot;

/** What the hooks read of a store snapshot: the claim they show, and the recorded data it is judged beside (the status is TanStack's). */
type ViewState = Pick<Snapshot, "claim" | "data">;

/**
 * A getSnapshot for useSyncExternalStore; the claim it last saw, which the pane reads (from then
 * on a claim alone changes the snapshot); `props`: the pane's notifyOnChangeProps at its render.
 */
type View = { get: () => ViewState; claim: () => ClaimView | undefined; props: (value: unknown) => void };

/**
 * A getSnapshot whose value keeps its identity until something the pane shows changes: the claim,
 * the failures it counts included (only once the pane has read it: `claimRead`, as TanStack renders
 * for the result properties a component reads). Not the rest of the snapshot: this tab's own ask (idle → pending while its
 * claim waits for the locks) renders nothing, nor does the recorded data (TanStack's update renders
 * it once it reaches the cache), nor, while `delivering` (this tab's own query function runs and
 * will hand the result to TanStack), a claim that ended as that result arrived. Stable across
 * reads of one store state, as useSyncExternalStore requires.
 */
function viewOf(read: () => Snapshot, delivering: () => boolean): View {
  let last: ViewState | undefined;
  let claimRead = false;
  // notifyOnChangeProps given ("all" or a list): it alone says what renders, reads track nothing (TanStack).
  let listed = false;
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
      if (last && (sameClaim(last.claim, state.claim) || !claimRead)) {
        // The data alone renders nothing here: it reaches TanStack's cache (bridge.ts), whose
        // update renders it. Kept for the comparisons, in the same object (same snapshot); so is
        // the claim: one the pane never read must not hide the next (same replica, looks the same).
        last.data = state.data;
        last.claim = state.claim;
        return last;
      }
      return (last = state);
    },
    claim: () => {
      claimRead ||= !listed;
      return claim;
    },
    props: (value) => {
      listed = value !== undefined;
      if (listed) claimRead = value === "all" || viewsClaim(value);
    },
  };
}

const noop = () => {};
const SERVER_VIEW: ViewState = Object.freeze({ claim: undefined, data: undefined });
const serverView = () => SERVER_VIEW;

/** How the view reads one kind of work from the store (fetches or programs). */
export type ViewBinding = {
  /** Stable id of the work (its query hash), or null when disabled. */
  id: string | null;
  snapshot(): Snapshot;
  subscribe(listener: () => void): () => void;
};

export function fetchBinding(store: SharedFetchStore, id: string | null, req: SharedRequest | null): ViewBinding {
  return {
    id: req ? id : null,
    snapshot: () => store.snapshot(req!),
    subscribe: (listener) => store.subscribe(req!, listener),
  };
}

/** The query's options the view reads: its key, and which result properties render it (TanStack's option). */
export type ViewOptions = { queryKey: QueryKey; notifyOnChangeProps?: unknown };

const viewsClaim = (list: unknown) => Array.isArray(list) && (list.includes("claim") || list.includes("isFetchingAnywhere"));

/**
 * The options for TanStack's hook: a notifyOnChangeProps list that names `claim` or
 * `isFetchingAnywhere` names `isFetching` too, as reading them tracks it (this tab's own claim ends
 * with its query function, whose end TanStack alone renders).
 */
export function withViewProps<O extends { notifyOnChangeProps?: unknown }>(opts: O): O {
  const given = opts.notifyOnChangeProps;
  const add = (list: unknown) => (viewsClaim(list) ? [...(list as string[]), "isFetching"] : list);
  return given === undefined ? opts : { ...opts, notifyOnChangeProps: typeof given === "function" ? () => add(given()) : add(given) };
}

/**
 * TanStack's result plus the cross-replica view. Results other replicas record reach this tab's
 * cache with their writer's `at` as `dataUpdatedAt` (so staleness is the recorded result's age),
 * except while this tab's own query function runs: it delivers them itself (bridge.ts, push.ts).
 * The result keeps TanStack's property tracking (each field is a getter onto TanStack's result).
 */
export function useSharedView<R extends { isFetching: boolean; refetch: (options?: RefetchOptions) => Promise<unknown> }>(
  query: R,
  { queryKey, notifyOnChangeProps }: ViewOptions,
  binding: ViewBinding,
): R & SharedView {
  const client = useQueryClient();
  const store = useSharedFetchStore();
  const { id } = binding;
  // The query functions count their runs under the key's JSON, per client (shared-query-fn's trackRunning).
  const runId = JSON.stringify(queryKey);
  // Keyed on `id` and the store, not the binding, whose closures change identity on every render.
  // The store: a provider given another store with the same identity keeps every key's id.
  const subscribe = useCallback((listener: () => void) => (id === null ? noop : binding.subscribe(listener)), [id, store]); // eslint-disable-line react-hooks/exhaustive-deps
  const view = useMemo(
    () =>
      viewOf(
        () => (id === null ? IDLE : binding.snapshot()),
        () => isRunning(store, runId, client),
      ),
    [id, runId, store, client], // eslint-disable-line react-hooks/exhaustive-deps
  );
  // As TanStack reads it: the query's own, else its key's defaults (setQueryDefaults), else the client's.
  const props: unknown = notifyOnChangeProps ?? client.defaultQueryOptions({ queryKey }).notifyOnChangeProps;
  view.props(typeof props === "function" ? props() : props);
  // The server's view while hydrating: no claim (its store made none this page could show).
  const snap = useSyncExternalStore(subscribe, view.get, serverView);
  // Results other replicas record reach the cache through the bridge of this client and store (one
  // implementation for every hook, TanStack's own included); held here too for a provider that
  // sits outside QueryClientProvider, where it cannot see the client.
  useEffect(() => holdBridge(client, store), [client, store]);
  // Keyed on TanStack's refetch, bound once per observer: the result object is new on every
  // render, and a refetch that changed with it would loop an effect that depends on it.
  const ownRefetch = query.refetch;
  const refetch = useCallback((options?: RefetchOptions) => ownRefetch({ ...options, meta: REFETCH_META } as RefetchOptions), [ownRefetch]);
  return useMemo(() => {
    const result = {} as R & SharedView;
    const own = new Set(["refetch", "claim", "isFetchingAnywhere"]);
    for (const name of Object.keys(query))
      if (!own.has(name)) Object.defineProperty(result, name, { enumerable: true, get: () => query[name as keyof R] });
    Object.defineProperty(result, "refetch", { enumerable: true, value: refetch });
    // The claim as last seen, read at access (a pane that never read it was not rendered for it).
    // Reading it tracks TanStack's isFetching too: this tab's own claim ends with its query
    // function, and when the answer equals what is shown, that fetch's end is all TanStack renders.
    Object.defineProperty(result, "claim", {
      enumerable: true,
      get: () => {
        void query.isFetching;
        return view.claim();
      },
    });
    Object.defineProperty(result, "isFetchingAnywhere", { enumerable: true, get: () => query.isFetching || view.claim() !== undefined });
    return result;
    // A new result for each change of the view, as TanStack's result is new for each change.
  }, [query, snap, refetch, view]); // eslint-disable-line react-hooks/exhaustive-deps
}
