import type { SharedFetchStoreExtras } from "../core/store-extras.ts";
import { followJoins, joinedKey, joinsOf } from "./joined-keys.ts";

/** Stores whose standing joins a feed read (see followFeedJoins). */
const seeded = new WeakSet<object>();
/** Per store: how many feeds' fetches ask each key now. */
const askers = new WeakMap<object, Map<string, number>>();

/**
 * followJoins for a feed's fetch, and once per store the joins standing before it was followed:
 * the store tells a join once per key and revision, and the bridge follows them from its creation
 * only, so a store that already waited on another replica's claim then (an ensure outside React: a
 * prefetch, a loader) had told it to nobody, and a feed of that page showed failureCount 0
 * through the claimant's retries. Read once from its inspection: the keys its asks wait on now
 * under another replica's claim.
 */
export function followFeedJoins(store: object): void {
  followJoins(store);
  const keys = joinsOf.get(store);
  if (!keys || seeded.has(store)) return;
  seeded.add(store);
  for (const k of (store as Partial<SharedFetchStoreExtras>).inspect?.().keys ?? [])
    if (k.local?.waiters && k.claim && !k.claim.mine) keys.add(k.key);
}

/** Counts a feed's fetch asking `key` of `store`: `by` 1 as its ask starts, -1 as it ends. */
export function countAsk(store: object, key: string | undefined, by: 1 | -1): void {
  if (key === undefined) return;
  let counts = askers.get(store);
  if (!counts) askers.set(store, (counts = new Map()));
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/**
 * Whether a feed asking `key` reads the failures of its claim: the store's asks wait on another
 * replica's claim of it, or another feed of the store asks it too (a second QueryClient of the
 * tab). One request serves both, retried by the policy of one ask (retryPolicy shows them in that
 * one's query): the other showed 0 throughout, where plain TanStack queries each show their own.
 */
export const readsClaim = (store: object, key: string | undefined): boolean =>
  joinedKey(store, key) || (key !== undefined && (askers.get(store)?.get(key) ?? 0) > 1);
