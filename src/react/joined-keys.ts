import { IDLE_STATES } from "../core/job.ts";
import type { SharedFetchStoreExtras } from "../core/store-extras.ts";

/** Per store: the keys its asks wait on another replica's claim of, the last told last (feed-joins.ts adds those standing before). */
export const joinsOf = new WeakMap<object, Set<string>>();

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
    if (e.type == "joined" || e.type == "yielded") {
      keys.delete(e.key);
      keys.add(e.key);
      // Bounded as the engine's idle key states are: a key another replica swept, or never asked
      // again, tells no event here, and a page open for days met a new key per page of a feed. A
      // key whose state the engine dropped has its join told again at its next ask.
      if (keys.size > 2 * IDLE_STATES) keys.delete(keys.values().next().value!);
    } else if (e.type == "claimed") keys.delete(e.key);
    else if (e.type == "swept") e.keys.forEach((key) => keys.delete(key));
  });
}

/** Whether the store's asks of `key` wait on another replica's claim (see followJoins). */
export const joinedKey = (store: object, key: string | undefined): boolean => key !== undefined && !!joinsOf.get(store)?.has(key);
