import type { Query, QueryState } from "@tanstack/react-query";
import type { SharedFetchStore, SharedRequest, SnapshotError } from "../core/types.ts";
import { resolve } from "./fetch-record.ts";
import type { Tail } from "./infinite-push.ts";
import { errorOf } from "./shared-error.ts";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

/** Per feed: the page whose failed fetch its error is for (a fetchNextPage's page, a refetch's page that failed). */
const failedPages = new WeakMap<object, SharedRequest>();

/** A feed's fetch ended: failed on `asked` (its last ask; none: it failed before asking), or succeeded. */
export function noteFetchEnd(query: AnyQuery, failed: boolean, asked: SharedRequest | undefined): void {
  if (failed && asked) failedPages.set(query, asked);
  else failedPages.delete(query);
}

/**
 * A recorded page whose latest outcome is an error, met by a restored chain: the feed shows its
 * error beside the pages before it, as TanStack shows a fetchNextPage that failed (a background
 * error: the pages kept and invalidated, one failure counted). Not invalidated yet before a mount
 * decides whether to fetch (the invalidation would make it refetch).
 */
export function showFailed(query: AnyQuery, req: SharedRequest, snapshotError: SnapshotError, isInvalidated = true): void {
  failedPages.set(query, req);
  const error = errorOf(snapshotError);
  const { errorUpdateCount, fetchFailureCount } = query.state;
  query.setState({
    status: "error",
    error,
    errorUpdateCount: errorUpdateCount + 1,
    errorUpdatedAt: Date.now(),
    fetchFailureCount: fetchFailureCount + 1,
    fetchFailureReason: error,
    isInvalidated,
  });
}

/**
 * After another replica's newer pages were set: the feed's error (`was`, its state before) is kept
 * beside them while the page it failed on still has an error as its latest outcome (`pushedError`:
 * a pushed page's), as the store's snapshot of that page says. A push answers none of its own
 * fetches, so it clears no failure of theirs; a later success does.
 */
export function keepFailure(store: SharedFetchStore, query: AnyQuery, was: QueryState<unknown, Error>, pushedError: unknown): void {
  const { status, error, fetchFailureCount, fetchFailureReason } = was;
  if (status !== "error") return;
  const page = failedPages.get(query);
  if (pushedError || (page && store.snapshot(page).error)) query.setState({ status, error, fetchFailureCount, fetchFailureReason });
}

/**
 * A chain a mount restored up to a failed page shows that page's error as chainAfter's does
 * (delivering), from the first render of a mount that will not fetch (enabled, fresh, its
 * `refetchOnMount` not "always"): read as the cache makes the query for it. Invalidated (TanStack's
 * mark of a failed fetchNextPage) only once observed, after that mount's decision, which the
 * invalidation would turn into a refetch of the pages; never while a fetch runs (a stale chain's
 * refetch), whose outcome tells. `deciding`: the options a disabled feed's observer renders with
 * (it decides by them whether to fetch once enabled), judged as a mount's.
 */
export function showRestoredFailure(store: SharedFetchStore, query: AnyQuery, chain: Tail | undefined, deciding?: object): void {
  const failed = chain?.failed;
  // Observed enabled: a disabled observer's query is judged by its options, as an unobserved one.
  const observed = !deciding && query.isActive();
  const o = (deciding ?? query.options) as { enabled?: unknown; staleTime?: number | "static"; refetchOnMount?: unknown };
  if (
    !failed ||
    (!observed &&
      (resolve(o.enabled, query) === false ||
        resolve(o.refetchOnMount, query) === "always" ||
        query.isStaleByTime(resolve(o.staleTime, query))))
  )
    return;
  if (observed) chain!.failed = undefined;
  const { error } = store.snapshot(failed.req);
  if (!error || (observed && query.state.fetchStatus !== "idle")) return;
  if (query.state.status !== "error") showFailed(query, failed.req, error, observed);
  else if (observed) query.setState({ isInvalidated: true });
}
