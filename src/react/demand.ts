/**
 * What a run of a shared query function asks of the store, read from its fetch's record
 * (fetch-record.ts): a newer revision or any recent enough outcome (its demand), past which errors,
 * and the retry policy the store runs inside its claim.
 */
import { isServer, onlineManager, type Query } from "@tanstack/react-query";
import { pollWindow } from "../core/freshness.ts";
import { NO_RETRY, pausingWhileOffline, tanstackRetry, type RetryPolicy } from "../core/retry.ts";
import type { SharedFetchStoreExtras } from "../core/store-extras.ts";
import type { ProgramRequest, SharedRequest } from "../core/types.ts";
import { invalidatedAfter, optionsOf, resolve, type FetchRecord } from "./fetch-record.ts";
import { SharedFetchError } from "./shared-error.ts";

/** fetchMeta that the hooks' `refetch()` passes: it asks for a newer revision, like store.refetch. */
export const REFETCH_META = { sharedFetch: "refetch" } as const;

/** What one run of a shared query function asks the store for. */
export type Demand = { mode: "refetch"; skipInFlight?: true; always?: true } | { mode: "ensure"; maxAgeMs: number; poll?: true };

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

function staleMs(value: unknown, query: AnyQuery): number | undefined {
  const v = resolve(value as number | "static" | undefined, query);
  return v === "static" ? Infinity : typeof v === "number" && v >= 0 ? v : undefined;
}

/**
 * Why TanStack ran the query function, read from the query itself: an explicit refetch (`refetch()`
 * from any observer's result — useQuery, useQueries, useSuspenseQuery or the hooks —,
 * `refetchQueries`, `invalidateQueries`: TanStack always fetches then) asks for a newer revision;
 * so does an invalidated query, and an errored, unpolled one (TanStack's error state is always
 * stale), and a mount, focus or reconnect whose option says `"always"`; anything else (mount,
 * focus, reconnect, a poll tick, prefetch) is a freshness demand that
 * any replica's recent enough outcome meets. The window is the shortest poll interval among the
 * query's observers (less a little, see pollWindow), else the shortest staleTime among them
 * (TanStack ran us because its own staleTime said stale); for the client's methods (fetchQuery,
 * prefetchQuery, ensureQueryData, query()) their own staleTime, as TanStack judged the data by it
 * alone. `fetch`: this run's record (takeFetch).
 */
export function demandOf(query: AnyQuery | undefined, fetch: FetchRecord | undefined): Demand {
  if (!query) return { mode: "ensure", maxAgeMs: 0 };
  const { state } = query;
  // Explicit: TanStack cancels a fetch in flight and sends another, so an answer to a request sent
  // before the call (another replica's, perhaps before a mutation) is not joined.
  if ((state.fetchMeta as { sharedFetch?: unknown } | null)?.sharedFetch === REFETCH_META.sharedFetch)
    return { mode: "refetch", skipInFlight: true };
  if (fetch?.fetchOptions?.cancelRefetch === true) return { mode: "refetch", skipInFlight: true };
  // An "always" mount (see below) before an invalidation: both ask for a newer revision, and a
  // shown error is not looked past for it (pastShownError).
  if (fetch?.mountAlways) return { mode: "refetch", always: true };
  // TanStack marks a failed query invalidated, and a fetch of one with no data shows it "pending":
  // that mark is the error's, not an invalidation's (a poll keeps its window after it).
  const erred = state.status === "error" || (state.status === "pending" && state.errorUpdateCount > 0);
  // An invalidation since the last error (refetchType "none") asks past it, a poll's tick too.
  if (state.isInvalidated && (!erred || invalidatedAfter.get(query) === state.errorUpdatedAt)) return { mode: "refetch" };
  if (fetch && !fetch.observer)
    return state.status === "error" ? { mode: "refetch" } : { mode: "ensure", maxAgeMs: staleMs(fetch.staleTime, query) ?? 0 };
  let interval = Infinity;
  let stale = Infinity;
  let any = false;
  let mountNever = true;
  let focusOrReconnectAlways = false;
  // The observers' options as the fetch began: one paused offline runs its function only once back
  // online, and options changed meanwhile (a staleTime raised) do not call off what TanStack decided.
  for (const options of fetch?.observed ?? optionsOf(query)) {
    if (resolve(options.enabled ?? true, query) === false) continue;
    const every = resolve(options.refetchInterval as number | false | undefined, query);
    if (typeof every === "number" && every > 0) interval = Math.min(interval, every);
    const ms = staleMs(options.staleTime, query);
    if (ms !== undefined) {
      stale = Math.min(stale, ms);
      any = true;
    }
    mountNever &&= resolve(options.refetchOnMount, query) === false;
    focusOrReconnectAlways ||=
      resolve(options.refetchOnWindowFocus, query) === "always" || resolve(options.refetchOnReconnect, query) === "always";
  }
  // `"always"` fetches whatever the data's age, as an explicit refetch does: a newer revision (K
  // tabs mounting at once join one), a polled query's mount too (TanStack's mount looks at no
  // interval); its poll ticks stay freshness demands. A focus or reconnect comes with `cancelRefetch: false`.
  if (interval !== Infinity) return { mode: "ensure", maxAgeMs: pollWindow(interval), poll: true };
  if (fetch?.fetchOptions?.cancelRefetch === false && focusOrReconnectAlways) return { mode: "refetch", always: true };
  if (erred) return { mode: "refetch" };
  // A mount with nothing shown though `refetchOnMount: false`: the hydration render left out the
  // recorded result (hydration.ts), which a client render shows as initialData and never refetches
  // on mount. Any recorded outcome is the answer (none: a request, as TanStack fetches then).
  if (fetch && !fetch.fetchOptions && mountNever && state.data === undefined) return { mode: "ensure", maxAgeMs: Infinity };
  if (!any) stale = staleMs((query.options as { staleTime?: unknown }).staleTime, query) ?? 0;
  // TanStack refetches at a focus or reconnect (`cancelRefetch: false`) only data an observer finds
  // stale: such a fetch of data none finds stale is your `refetch({ cancelRefetch: false })`.
  if (fetch?.fetchOptions?.cancelRefetch === false && !query.isStaleByTime(stale)) return { mode: "refetch" };
  return { mode: "ensure", maxAgeMs: stale };
}

/**
 * A SharedWorker tab keeps a key it does not hear of (RemoteStore.hears) as of its last answer: the
 * error it shows (TanStack's reason to fetch now) may since have been followed by another tab's
 * result, which a tab that heard of it got from the bridge. This looks at what the worker holds
 * now (`heard`: no request, so that the one sent, if any, is the query's own, with its lease and
 * retry); when that is no error, it is the answer (the demand returned). An explicit refetch
 * (`asked` skips what is in flight) and an `"always"` mount, focus or reconnect ask anew whatever
 * the worker holds, as TanStack's do and a per-tab store's do: they are not looked past. Nothing to ask returns undefined, not a promise: awaiting it would put the
 * ask a microtask later, after a remount's unsubscribe in the same commit, whose request would
 * then be let go. `shown`: the error the query showed (FetchRecord), where it is one key's (not a
 * feed's pages): a tab that forgot the key (KEPT_UNHELD) reads it idle, yet the query showed an error.
 */
export function pastShownError(
  store: Partial<SharedFetchStoreExtras>,
  kind: "fetch" | "program",
  key: string | undefined,
  req: SharedRequest | ProgramRequest,
  read: () => { error?: unknown },
  signal: AbortSignal,
  asked: Demand,
  shown?: unknown,
): Promise<Demand | undefined> | undefined {
  if (
    (asked.mode === "refetch" && (asked.skipInFlight || asked.always)) ||
    (!read().error && !shown) ||
    key === undefined ||
    store.hears?.(key) !== false
  )
    return undefined;
  return store.heard!(kind, req, signal).then(() => (read().error ? undefined : { mode: "ensure", maxAgeMs: Infinity }));
}

/**
 * TanStack's error state is always stale: a recorded error (another replica's, or one persisted
 * before a reload) is not the fresh answer to a demand, whether the query shows data or not
 * (errors are per replica), and a claim in flight after it is joined, not passed over for the
 * error it follows. Such a demand asks for a newer revision (K tabs asking at once join one).
 * A poll keeps its window: one request per interval for all, whatever the last outcome.
 */
export function pastRecordedError(demand: Demand, latest: () => { error?: unknown }): Demand {
  if (demand.mode !== "ensure" || demand.poll) return demand;
  // The snapshot's `error` is the latest outcome's (its status says "pending" while a claim stands).
  return latest().error !== undefined ? { mode: "refetch" } : demand;
}

/**
 * Where a fetch's retry policy keeps the error it last gave `retry` / `retryDelay` (one object per
 * failure): TanStack's retryer shows that object as `failureReason`, and the last one as `error`,
 * so an effect keyed on either runs once per failure, as with a plain useQuery.
 */
export type Given = { error?: SharedFetchError };

/**
 * TanStack's `retry` / `retryDelay` / `networkMode` as TanStack merged them for this fetch (the
 * record: yours spread over the options, the key's defaults, the client's; `retry: false` from the
 * client's methods when none was given), run by the store inside its claim; TanStack's own defaults
 * where the merge left none (3 retries in a browser, 0 on a server; exponential delay; "online").
 * No record: TanStack's retryer runs this query function with the query's own retry (a `behavior`
 * of yours replaced the one sharedQueryOptions gives), so the store retries nothing on top of it.
 * Outside `networkMode: "always"` a retry waits while onlineManager says offline, as TanStack's
 * retryer pauses: an offline browser's failures do not use up the retries and end in an error.
 */
export function retryPolicy(fetch: FetchRecord | undefined, query: AnyQuery | undefined, given: Given): RetryPolicy {
  if (!fetch) return NO_RETRY;
  const policy = tanstackRetry<SharedFetchError>(
    fetch.retry ?? (isServer ? 0 : 3),
    fetch.retryDelay,
    (error) => (given.error = new SharedFetchError(error)),
  );
  const { retry } = policy;
  // Each failure the claim retries shows as TanStack's retryer shows it; the last one adds itself.
  if (query)
    policy.retry = (count, error) => {
      const again = retry(count, error) as boolean;
      if (again && query.state.fetchStatus != "idle")
        query.setState({ ...query.state, fetchFailureCount: count + 1, fetchFailureReason: given.error });
      return again;
    };
  if ((fetch.networkMode ?? "online") === "always") return policy;
  return pausingWhileOffline(
    policy,
    { isOnline: () => onlineManager.isOnline(), subscribe: (listener) => onlineManager.subscribe(listener) },
    query && ((on) => showPaused(query, on)),
  );
}

/**
 * The query's `fetchStatus` through a retry's offline wait, as TanStack's retryer shows its own
 * pause ("paused", then "fetching" again). Only from the state it expects: the fetch may have
 * ended meanwhile (cancelled, or settled by another replica's result), and that state stands.
 */
function showPaused(query: AnyQuery, on: boolean): void {
  const [from, to] = on ? (["fetching", "paused"] as const) : (["paused", "fetching"] as const);
  if (query.state.fetchStatus === from) query.setState({ ...query.state, fetchStatus: to });
}
