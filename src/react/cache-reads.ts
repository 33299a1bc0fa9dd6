import type { QueryCache } from "@tanstack/react-query";
import type { AnyQuery } from "./query-registrations.ts";

/** Per query cache: what each bridge does as TanStack hands a query out (one wrapper per cache, however many bridges). */
const readers = new WeakMap<QueryCache, Set<(query: AnyQuery) => void>>();

/** How many bridges read a cache's queries as it hands them out (a test's count: none left once each bridge is gone). */
export const readersOf = (cache: QueryCache): number => readers.get(cache)?.size ?? 0;

/**
 * What the bridge looks up for itself, whose lookups are no reads: a cache while reconcile checks a
 * query in it, the query a push sets (its sets hand it out again). Only that query: the app's cache
 * listeners run inside the push's set, and their lookups of other queries, of any client, read.
 */
export const quiet = new Set<object>();

/**
 * Calls `read` with each query the cache hands out (`get`: getQueryData, getQueryState,
 * setQueryData's updater, a mount's or a fetch's build, hydrate; `find`, `findAll`: the client's
 * methods by filters; `getAll`: dehydrate), before the caller reads it: only those it hands out, so
 * a filter's read costs what it finds, not what the cache holds. TanStack's own walks of the cache
 * (the getAll that find and findAll filter, and that a focus, a reconnect or clear() go through)
 * read nothing: that getAll is the first call each makes, skipped once, so the app's lookups in a
 * filter's predicate or a focus refetch's query function still read. Returns the release.
 */
export function onGet(cache: QueryCache, read: (query: AnyQuery) => void): () => void {
  let all = readers.get(cache);
  if (!all) {
    const each = (all = new Set());
    readers.set(cache, all);
    let walk = false;
    const give = (q: AnyQuery) => quiet.has(q) || each.forEach((r) => r(q));
    for (const name of ["get", "getAll", "find", "findAll", "onFocus", "onOnline", "clear"] as const) {
      const lookup = cache[name].bind(cache) as (arg?: unknown) => AnyQuery | AnyQuery[] | undefined;
      cache[name] = ((arg?: unknown) => {
        if (name === "getAll" && walk) return ((walk = false), lookup());
        walk = name !== "get" && name !== "getAll";
        try {
          const found = lookup(arg);
          // No array made for a single query: `get` runs at every render's build.
          if (quiet.has(cache)) return found;
          if (Array.isArray(found)) found.forEach(give);
          else if (found) give(found);
          return found;
        } finally {
          walk = false;
        }
      }) as never;
    }
  }
  all.add(read);
  return () => all.delete(read);
}
