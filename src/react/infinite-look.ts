import type { Query } from "@tanstack/react-query";
import type { SharedFetchStoreExtras } from "../core/store-extras.ts";
import type { SharedFetchStore } from "../core/types.ts";
import { chainOf, type ChainOptions, type PageRequest } from "./infinite-push.ts";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

/**
 * A disabled feed where the store does not hear of its pages (a SharedWorker tab): each page of
 * the chain looked up in turn (no request, nothing subscribed), `done` at each end of it, again
 * once a page that ended it is recorded. `put` shows the chain looked up, as recordedChain shows a
 * per-tab replica's. Returns the end of its looks.
 */
export function lookChain(store: SharedFetchStore, request: PageRequest, query: AnyQuery, done: () => void) {
  const extras = store as Partial<SharedFetchStoreExtras>;
  if (!extras.look) return undefined;
  const answered = new Set<string>();
  const offs = new Map<string, () => void>();
  const known = (key: string) => answered.has(key) || !!extras.hears?.call(store, key);
  let ended = false;
  const walk = (): void => {
    if (ended) return;
    const { next } = chainOf(store, request, query.options as unknown as ChainOptions, known);
    if (!next) return done();
    if (!offs.has(next.key))
      offs.set(
        next.key,
        extras.look!.call(store, "fetch", next.req, () => (answered.add(next.key), walk())),
      );
  };
  lookedChains.set(query, known);
  // Not inside the cache's notice that asked for the look: where every page is heard, it ends at
  // once. Ended before (its query removed at once), it asks nothing.
  queueMicrotask(walk);
  return () => {
    ended = true;
    offs.forEach((off) => off());
  };
}

/** Per feed: which of its pages' kept records are current (looked up, or heard of). */
const lookedChains = new WeakMap<object, (key: string) => boolean>();

/** The chain a feed's look found (lookChain), into the query, as its initialData would be. */
export function putChain(store: SharedFetchStore, request: PageRequest, query: AnyQuery): void {
  const known = lookedChains.get(query);
  const chain = known && chainOf(store, request, query.options as unknown as ChainOptions, known);
  // Not `manual`: that is the app's own set, which makes the data come from outside the store.
  if (chain?.data.pages.length) query.setData(chain.data, { updatedAt: chain.at, manual: false });
}
