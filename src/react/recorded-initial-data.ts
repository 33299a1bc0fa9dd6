import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { SharedFetchStore } from "../core/types.ts";
import { devtoolsHeld, storeInitial } from "./push.ts";
import { isRunning } from "./shared-query-fn.ts";

type Extras = Partial<SharedFetchStoreExtras>;

/**
 * Whether a query may show what the store recorded for its work (`work`: the store's key, absent
 * for bad input) as its initialData: not while its own query function runs (that delivers), nor
 * while the Query devtools hold it in a state of theirs (push.ts, devtoolsHeld), and not a record
 * the store no longer hears of (a SharedWorker tab's key it stopped showing: its age would be
 * taken as fresh where another tab has recorded newer data since).
 */
export function mayShowRecorded(store: SharedFetchStore, id: string, work: string | undefined): boolean {
  return (
    work !== undefined &&
    !isRunning(store, id) &&
    ![...devtoolsHeld].some((query) => JSON.stringify(query.queryKey) == id) &&
    (store as Extras).hears?.call(store, work) !== false
  );
}

/**
 * The query's `initialData` and its date, after the caller's (`given`): the caller's own, else what
 * the store recorded. An explicit `initialData: undefined` means none of the caller's, and so does
 * a function of the caller's that finds none (TanStack's "initial data from the cache" recipe):
 * the recorded result still shows at once. TanStack asks the date right after the data it dates.
 */
export function orRecorded<T>(
  given: { initialData?: unknown; initialDataUpdatedAt?: unknown },
  data: () => T | undefined,
  at: () => number,
) {
  const { initialData: mine, initialDataUpdatedAt: mineAt } = given;
  if (mine !== undefined && typeof mine !== "function") return {};
  let own: T | undefined;
  const initialData = (): T | undefined => ((own = typeof mine === "function" ? mine() : undefined) !== undefined ? own : data());
  storeInitial.set(initialData, () => own === undefined);
  return {
    initialData,
    initialDataUpdatedAt: (): number | undefined =>
      own === undefined ? at() : typeof mineAt === "function" ? mineAt() : (mineAt as number | undefined),
  };
}
