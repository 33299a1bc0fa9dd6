import type { SharedFetchStoreExtras } from "../core/store-extras.ts";

type Joins = { keys: Map<string, boolean>; asks: number; off?: (() => void) | undefined };
const joinsOf = new WeakMap<object, Joins>();

/**
 * Follows, while an ask of the store is out, which keys its asks wait on another replica's claim
 * of: the store tells a join once per key and revision (`joined`, or `yielded` to that claim), for
 * every ask of it (another QueryClient's too), until this replica claims the key (`claimed`).
 * Returns the ask's end; the last one stops following.
 */
export function followJoins(store: Partial<SharedFetchStoreExtras>): () => void {
  let joins = joinsOf.get(store);
  if (!joins) joinsOf.set(store, (joins = { keys: new Map(), asks: 0 }));
  const j = joins;
  if (!j.asks++)
    j.off = store.onEvent?.call(store, (e) => {
      if (e.type == "joined" || e.type == "yielded" || e.type == "claimed") j.keys.set(e.key, e.type != "claimed");
    });
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--j.asks) return;
    j.off?.();
    j.keys.clear();
  };
}

/** Whether the store's asks of `key` wait on another replica's claim (see followJoins). */
export const joinedKey = (store: object, key: string | undefined): boolean =>
  key !== undefined && joinsOf.get(store)?.keys.get(key) === true;
