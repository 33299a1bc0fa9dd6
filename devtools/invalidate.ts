import type { QueryClient, QueryKey } from "@tanstack/react-query";
import type { ActionResult } from "./actions.ts";
import { inspectable, type SharedFetchStore } from "./core.ts";
import { splitLabel } from "./keys-query.ts";

/** What an invalidation reached: the doc (every replica) and, when given one, this tab's QueryClient. */
export type InvalidateResult = ActionResult & { doc?: boolean; queryClient?: boolean };

/**
 * The key `sharedQueryOptions` gives a request, `["shared-fetch", method, origin + path, key]`,
 * rebuilt from the doc's label (labels hold no query string: "?…" marks one, the key tells them
 * apart). Undefined when the label is not a request's (a peer's record without one).
 */
export function sharedQueryKeyOf(key: string, label: string | undefined): QueryKey | undefined {
  if (label === undefined) return undefined;
  const { method, url } = splitLabel(label);
  if (!method || !/^https?:\/\//.test(url)) return undefined;
  return ["shared-fetch", method, url.endsWith("?…") ? url.slice(0, -2) : url, key];
}

/**
 * Marks the key's recorded outcome stale for every replica, fetching nothing now (TanStack's
 * invalidate, across replicas). In the doc, its latest result and error are rewritten dated at
 * the epoch (`at: 0`, a date no writer records): older than any freshness demand
 * (src/core/freshness.ts), so every replica's next mount, focus, poll or `ensure` with `maxAgeMs`
 * fetches a new revision, and the hooks mark their cached data invalid (use-shared-view.ts). With
 * the app's QueryClient, its queries of the key are invalidated too: the active ones refetch now
 * (a store refetch, see demand.ts).
 */
export function invalidateKey(
  store: SharedFetchStore,
  key: string,
  opts: { label?: string; queryClient?: QueryClient } = {},
): InvalidateResult {
  const { records, internals } = inspectable(store);
  const { queryClient } = opts;
  if (internals.dev.crashed) return { ok: false, message: "This replica crashed (simulation): it writes nothing more." };
  let doc = false;
  records.doc.transact(() => {
    doc = markStale(records.results, key) || doc;
    doc = markStale(records.programs, key) || doc;
    doc = markStale(records.errors, key) || doc;
  });
  if (!doc && !queryClient) return { ok: false, message: "Nothing is recorded for this key: nothing to mark stale." };
  if (queryClient) {
    const queryKey = sharedQueryKeyOf(key, opts.label);
    // A label that names no request: match the key's place in sharedQueryOptions' keys instead.
    void queryClient.invalidateQueries(
      queryKey ? { queryKey, exact: true } : { queryKey: ["shared-fetch"], predicate: (q) => q.queryKey[3] === key },
    );
  }
  return { ok: true, doc, queryClient: queryClient !== undefined };
}

type Table<T> = { get(key: string): T | undefined; set(key: string, value: T): void };

/** Rewrites the record dated at the epoch (unless it is already); whether anything is recorded there. */
function markStale<T extends { at?: number; data?: unknown }>(table: Table<T>, key: string): boolean {
  const record = table.get(key);
  if (record === undefined) return false;
  if (record.at === 0) return true;
  const copy = { ...record, at: 0 };
  // A copy of the data too: this replica's own listeners then see a new snapshot, as every other replica does.
  if ("data" in copy) copy.data = structuredClone(copy.data);
  table.set(key, copy);
  return true;
}
