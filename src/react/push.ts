import type { Query, QueryClient } from "@tanstack/react-query";
import type { Snapshot } from "../core/types.ts";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

/**
 * The record (revision and writer's `at`) whose result each query holds, as delivered by the
 * store (its query function or a push from another replica's result). Absent: the data came from
 * elsewhere (hydration, initialData, setQueryData) and is compared by time instead.
 */
const deliveredRev = new WeakMap<object, { rev: number; at?: number | undefined }>();

/**
 * The store's data object last set into each query by pushRecorded. Remembered by identity
 * (TanStack's structural sharing keeps its own copy): a later snapshot change of the same record (a
 * claim appearing) must not set it again, as each set restarts the query's refetchInterval timer,
 * and a tab whose timer restarts whenever another tab claims never polls.
 */
const handedOver = new WeakMap<object, unknown>();

/**
 * When each query was last invalidated (TanStack dispatches "invalidate" only to a query not
 * invalidated yet, and keeps no time of it): read while it is still invalidated.
 */
const invalidatedAt = new WeakMap<object, number>();

/**
 * The `updatedAt` pushRecorded last set on each query: TanStack reports that set as a manual one
 * too, to cache listeners that may run a task later, so it is told from the app's by this.
 */
const pushedAt = new WeakMap<object, number>();

/**
 * The store's delivery to each query, applied when TanStack sets its data: the record, the data,
 * the writer's `at` when the request was sent before the query function asked (another replica's,
 * joined or recent enough: TanStack dates what a query function returns now, which would make an
 * older result look fresh here) and the fetch's signal. A fetch cancelled (its signal aborted)
 * sets no data: its mark is never taken for a later success's, which without a mark ran a query
 * function of the app's own (fetchQuery with its queryFn). A fetch marked fails no more (a
 * recorded result's data is never undefined, which TanStack refuses).
 */
const marks = new WeakMap<object, [record: { rev: number; at?: number | undefined }, data: unknown, at?: number, signal?: AbortSignal]>();

/**
 * The data each query held after the store's last delivery to it: data set otherwise (hydrate, a
 * persister's restore, the app's own query function) is compared by time from then on.
 */
const storeData = new WeakMap<object, unknown>();

/**
 * Queries whose data the app set itself (setQueryData): the last revision recorded or claimed
 * then. A later one was claimed, so requested, after the set, whatever its writer's clock says.
 */
export const setByApp = new WeakMap<object, number>();

/**
 * Queries whose data the app set while a mutation was pending in their client: TanStack's
 * optimistic update (onMutate's setQueryData, onError's rollback). Another replica's result waits
 * until no mutation is pending, as the recipe's cancelQueries keeps this tab's own fetches from
 * undoing the update: one sent after the set showed the list without this tab's pending item (two
 * tabs adding at once), where plain TanStack never shows another tab's result at all.
 */
export const heldBack = new WeakSet<object>();

/**
 * Whether TanStack's Query devtools put the query in a state of their own (Trigger Loading, Trigger
 * Error), told by the options they keep in its fetchMeta to restore it: this tab's view alone, which
 * no recorded result replaces until their Restore, or the query's next fetch, ends it.
 */
export const byDevtools = (query: AnyQuery): boolean =>
  !!(query.state.fetchMeta as { __previousQueryOptions?: unknown } | null)?.__previousQueryOptions;

/**
 * The queries in such a state, as the bridge last saw them: their initialData must not give the
 * recorded result back meanwhile (TanStack consults it whenever their observers render while they
 * hold no data: Trigger Loading came undone at once, and its fetch, never ending, was left running).
 */
export const devtoolsHeld = new Set<AnyQuery>();

/**
 * orRecorded's initialData functions: whether the data each last gave was the store's, none of the
 * caller's. A query reset to it shows that data where a plain one has none, and resetQueries'
 * refetch passes over a query with data whose `staleTime` is "static": from its reset to its next
 * fetch such a query is not static, as a plain one with no data is not, and a static observer's
 * mount fetches it (fetch-record.ts, noteSubscribed).
 */
export const storeInitial = new WeakMap<object, () => boolean>();

/** Told of each action on a query's state, for what its fetch delivers in parts (an infinite query's pages). */
export const onAction = new WeakMap<object, (action: { type: string; manual?: boolean }) => void>();

/**
 * The bridge tells of each action on a shared query's state. The app's own `setQueryData` (an
 * optimistic update) makes the query's data come from outside the store: from then on only a
 * result whose request was sent after it replaces it (compared by time, as hydrated data is), not
 * one of a newer revision whose request another replica sent before the set. Returns whether the
 * query went back to its initial state, which the bridge replaces at once by what is recorded now
 * if that is newer (before resetQueries' refetch starts, which would keep it shown meanwhile).
 */
export function noteAction(
  query: AnyQuery,
  action: { type: string; manual?: boolean; dataUpdatedAt?: number },
  recorded?: Recorded,
  mutating?: boolean,
): boolean {
  onAction.get(query)?.(action);
  if (action.type === "invalidate") invalidatedAt.set(query, Date.now());
  const mark = action.type === "success" && marks.get(query);
  const marked = mark && marks.delete(query) && !mark[3]?.aborted;
  if (marked) {
    deliveredRev.set(query, mark[0]);
    handedOver.set(query, mark[1]);
    // Before the redating, whose setState must find this data the store's.
    storeData.set(query, query.state.data);
    if (!action.manual && mark[2]) query.setState({ ...query.state, dataUpdatedAt: mark[2] });
  }
  const ours = action.dataUpdatedAt !== undefined && action.dataUpdatedAt === pushedAt.get(query);
  // The state the query was made with, again (resetQueries, or a first fetch cancelled): its
  // initialData is the result recorded back then, older than what the store holds now.
  const reset = action.type === "setState" && !query.state.dataUpdateCount;
  if (action.type === "success" || reset) heldBack.delete(query);
  if (action.type === "fetch" || reset) {
    delete (query as Partial<AnyQuery>).isStatic;
    delete (query as Partial<AnyQuery>).isDisabled;
  }
  if (reset && storeInitial.get(query.options.initialData as object)?.()) query.isStatic = () => false;
  if ((action.type === "success" && action.manual === true && !ours) || reset) {
    deliveredRev.delete(query);
    handedOver.delete(query);
    if (reset) setByApp.delete(query);
    else {
      setByApp.set(query, recorded ? (recorded.info()?.rev ?? 0) + (recorded.snapshot().claim ? 1 : 0) : Infinity);
      if (mutating) heldBack.add(query);
    }
  }
  // Data that did not come from the store replaced what it delivered: hydrate's setState (a
  // navigation's HydrationBoundary, a persister's restore), or a success of the app's own query
  // function. A result of a higher revision may have been requested before that data was read.
  // Only a success or a setState changes the data.
  if (!marked && query.state.data !== storeData.get(query)) {
    deliveredRev.delete(query);
    handedOver.delete(query);
  }
  return reset;
}

/**
 * The store delivers this revision's recorded data (a query function of its fetch `signal`, or a
 * push): once set, the bridge must not set it again, nor set it back over what the app puts in the
 * cache after it (setQueryData).
 */
export function markDelivered(
  query: object,
  record: { rev: number; at?: number | undefined },
  data: unknown,
  at?: number,
  signal?: AbortSignal,
): void {
  marks.set(query, [record, data, at, signal]);
}

/**
 * When the data a query shows was set from outside the store (setQueryData, hydration; not an
 * initialData, a stand-in): its date. A program's demand (met by any recorded resolution) must not
 * be met by one older than that, which would replace newer data with older.
 */
export const shownSince = (query: AnyQuery): number | undefined =>
  query.state.dataUpdateCount && !deliveredRev.has(query) ? query.state.dataUpdatedAt : undefined;

/** Where a query's record is read: the store's snapshot and the recorded result's revision and writer's `at`. */
export type Recorded = {
  /** `query`: given where the bridge reads the claim a fetching query waits on (a feed's: the page it asks for). */
  snapshot(query?: AnyQuery): Snapshot;
  info(): { rev: number; at?: number; ahead?: true } | undefined;
};

/**
 * Puts what any replica recorded for a query into this tab's cache, with the writer's `at` as
 * `dataUpdatedAt` (so staleness is the recorded result's age), when it is newer than what the
 * query holds. The one implementation behind every shared query, whichever hook observes it.
 */
export function pushRecorded(client: QueryClient, query: AnyQuery, recorded: Recorded): void {
  const snap = recorded.snapshot();
  const info = recorded.info();
  // Data dated in this tab's future (hydrated from a server whose clock runs ahead of ours) is as
  // young as now here, never younger: else it stays fresh, and refuses newer results, for the skew.
  const now = Date.now();
  if (query.state.dataUpdatedAt > now) query.setState({ ...query.state, dataUpdatedAt: now });
  if (snap.data === undefined || !info) return;
  const { state } = query;
  // While this tab's query function runs it delivers what it waits for itself (as plain useQuery
  // would); only a query showing nothing yet takes older data recorded meanwhile (still pending:
  // not what the function waits for), stale-while-revalidate.
  if (state.fetchStatus !== "idle" && (state.data !== undefined || snap.status !== "pending")) return;
  const { queryKey } = query;
  // A recorded outcome dated at the epoch was invalidated for every replica (the devtools'
  // invalidate): stale here too, as invalidateQueries marks it; the next mount, focus or poll fetches.
  if (info.at === 0 && state.dataUpdatedAt > 0 && !state.isInvalidated) {
    void client.invalidateQueries({ queryKey, exact: true, refetchType: "none" });
    return;
  }
  const delivered = deliveredRev.get(query);
  const at = info.at ?? 0;
  if (delivered === undefined) {
    // Data from outside the store (hydration, initialData, setQueryData): keep it unless ours is
    // newer. The app's own set stays unless ours was requested after it, which a result dated in
    // our future cannot tell (its writer's clock runs ahead: sent before the set, it arrives after).
    if (state.data !== undefined && (at <= state.dataUpdatedAt || (info.ahead && info.rev <= (setByApp.get(query) ?? 0)))) return;
  } else if (
    // A lower revision is older, unless written after what is shown: its record was evicted (the
    // program LRU, the devtools) and its key started again at revision 1.
    (info.rev < delivered.rev && at <= state.dataUpdatedAt) ||
    (info.rev === delivered.rev &&
      ((state.dataUpdatedAt === at && state.data === snap.data) ||
        handedOver.get(query) === snap.data ||
        // The same record in another object: a SharedWorker tab's fresh clone of a key it had forgotten.
        at === delivered.at))
  )
    return;
  // Same revision, other data: two replicas recorded it in a partition and the doc kept the other one.
  markDelivered(query, info, snap.data);
  const since = state.isInvalidated ? invalidatedAt.get(query) : undefined;
  pushedAt.set(query, at);
  // Into this query itself, as setQueryData would with its key: that one hashes the key by the
  // client's defaults, and misses a query whose own queryKeyHashFn made its hash.
  query.setData(snap.data, { updatedAt: at, manual: true });
  // Older than the error this query shows, which is still the latest outcome (the store's status
  // "error": a refetch sent after this data's request failed): kept beside it, as TanStack keeps a
  // failed refetch's error beside the data (invariant 7). A later result clears it, as a success does.
  if (snap.error && state.status === "error") query.setState({ status: "error", error: state.error, isInvalidated: state.isInvalidated });
  // A result whose request was sent before this tab's invalidation (another replica's, in flight
  // then) may predate what the invalidation was for (a mutation): the query stays invalidated, as
  // in plain TanStack nothing newer than the invalidation would have reached it. So may one sent in
  // its ms (whole ms tell no order), and one dated in our future: sent before it arrived, no more.
  if (since !== undefined && (at <= since || info.ahead)) {
    void client.invalidateQueries({ queryKey, exact: true, refetchType: "none" });
    invalidatedAt.set(query, since);
  }
}
