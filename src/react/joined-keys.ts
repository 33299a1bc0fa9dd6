import type { SharedFetchStoreExtras } from "../core/store-extras.ts";

/** Per store: the keys its asks wait on another replica's claim of. */
const joinsOf = new WeakMap<object, Set<string>>();

/**
 * Follows which keys the store's asks wait on another replica's claim of: the store tells a join
 * once per key and revision (`joined`, or `yielded` to that claim), for every ask of it (another
 * QueryClient's, a useQuery's of the same request), until this replica claims the key (`claimed`)
 * or sweeps it. From the first bridge of the store on (bridge.ts), for the store's life (its
 * destroy drops its listeners): followed only while a feed's ask was out, a join told earlier (a
 * useQuery of the page's request joined the claim first) was missed, and the feed showed 0.
 */
export function followJoins(store: object): void {
  const s = store as Partial<SharedFetchStoreExtras>;
  // Not a SharedWorker tab's (`hears`): its feeds read the record throughout, and a listener there
  // has the worker post every event of the store to the tab.
  if (joinsOf.has(store) || s.hears) return;
  const keys = new Set<string>();
  joinsOf.set(store, keys);
  s.onEvent?.((e) => {
    if (e.type == "joined" || e.type == "yielded") keys.add(e.key);
    else if (e.type == "claimed") keys.delete(e.key);
    else if (e.type == "swept") e.keys.forEach((key) => keys.delete(key));
  });
}

/** Whether the store's asks of `key` wait on another replica's claim (see followJoins). */
export const joinedKey = (store: object, key: string | undefined): boolean => key !== undefined && !!joinsOf.get(store)?.has(key);
