import type { QueryClient } from "@tanstack/react-query";
import { cannotWrite, type ActionResult } from "./actions.ts";
import { inspectable, type SharedFetchStore } from "./core.ts";

/** What an invalidation reached: the doc (every replica) and, when given one, this tab's QueryClient. */
export type InvalidateResult = ActionResult & { doc?: boolean; queryClient?: boolean };

/**
 * Marks the key's recorded outcome stale for every replica, fetching nothing now (TanStack's
 * invalidate, across replicas). In the doc, its latest result and error are rewritten dated at
 * the epoch (`at: 0`, a date no writer records): older than any freshness demand
 * (src/core/freshness.ts), so every replica's next mount, focus, poll or `ensure` with `maxAgeMs`
 * (any `ensureProgram`: otherwise only a poll judges a program by age) fetches a new revision, and the
 * hooks mark their cached data invalid (use-shared-view.ts). With the app's QueryClient, its
 * queries of the key are invalidated too: the active ones refetch now (a store refetch, see
 * demand.ts).
 */
export function invalidateKey(store: SharedFetchStore, key: string, opts: { queryClient?: QueryClient } = {}): InvalidateResult {
  const { records, internals } = inspectable(store);
  const { queryClient } = opts;
  const refused = cannotWrite(internals);
  if (refused) return refused;
  let doc = false;
  records.doc.transact(() => {
    doc = markStale(records.results, key) || doc;
    doc = markStale(records.programs, key) || doc;
    doc = markStale(records.errors, key) || doc;
  });
  if (!doc && !queryClient) return { ok: false, message: "Nothing is recorded for this key: nothing to mark stale." };
  // Matched by the key's place in the keys sharedQueryOptions and sharedProgramOptions make, not by
  // a key rebuilt from the label: the panel's labels are cut short, and a peer's may be missing.
  if (queryClient) void queryClient.invalidateQueries({ queryKey: ["shared-fetch"], predicate: (q) => q.queryKey[3] === key });
  return { ok: true, doc, queryClient: queryClient !== undefined };
}

type Table<T> = { get(key: string): T | undefined; set(key: string, value: T): void };

/** Rewrites the record dated at the epoch (unless it is already); whether anything is recorded there. */
function markStale<T extends { at?: number; inv?: number; data?: unknown }>(table: Table<T>, key: string): boolean {
  const record = table.get(key);
  if (record === undefined) return false;
  if (record.at === 0) return true;
  // When, kept beside the mark: a result from a partition's other side sent before it stays stale (keepNewer).
  const copy = { ...record, at: 0, inv: Date.now() };
  // A copy of the data too: this replica's own listeners then see a new snapshot, as every other replica does.
  if ("data" in copy) copy.data = structuredClone(copy.data);
  table.set(key, copy);
  return true;
}
