import type { Query } from "@tanstack/react-query";
import type { SharedRequest } from "../core/types.ts";
import { noteFetchEnd, showFailed } from "./feed-failure.ts";
import type { Pages, Tail } from "./infinite-push.ts";
import { markDelivered, onAction, shownSince } from "./push.ts";

type AnyQuery = Query<unknown, Error, unknown, readonly unknown[]>;

/**
 * An infinite query's pages as delivered by the store: each page's request key and the revision of
 * the result it shows. Forgotten when the app set the data itself (setQueryData: the store's
 * delivery mark goes), whose pages are then compared by time, as hydrated data is.
 */
export const delivered = new WeakMap<object, Map<string, number>>();

export function pagesDelivered(query: AnyQuery): Map<string, number> {
  let revs = delivered.get(query);
  if (!revs || shownSince(query) !== undefined) delivered.set(query, (revs = new Map()));
  markDelivered(query, { rev: 0 }, undefined);
  return revs;
}

/** What one fetch delivers: its pages' revisions, the recorded tail, the page it asks for last. */
export type Delivery = { revs: Map<string, number>; tail?: Tail | undefined; asked?: SharedRequest | undefined };

/**
 * The pages one fetch (its signal) delivers, counted as shown once TanStack sets that fetch's data:
 * cancelled (the query reverted) or failed, the query shows the pages it showed before, and a
 * newer chain recorded since, the one it was asking for included, is pushed to it as to any tab.
 * Its first page fetched from nothing, the recorded `tail` after it is set with it, dated by its
 * oldest page, as a mount that found the chain recorded shows it, and the error of the page that
 * ended it, if one did.
 */
export function delivering(query: AnyQuery, signal: AbortSignal): Delivery {
  const out: Delivery = { revs: new Map() };
  onAction.set(query, ({ type, manual }) => {
    if (type != "error" && (type != "success" || manual)) return;
    onAction.delete(query);
    noteFetchEnd(query, type == "error", out.asked);
    const mine = type == "success" && !signal.aborted && pagesDelivered(query);
    if (!mine) return;
    out.revs.forEach((rev, key) => mine.set(key, rev));
    const { tail } = out;
    const set = query.state.data;
    // A microtask later: not inside TanStack's dispatch of the fetch's own data. Only over that
    // data: the app may set its own in between (a QueryCache onSuccess), after another page.
    if (tail)
      queueMicrotask(() => {
        const { data, dataUpdatedAt } = query.state as { data?: Pages; dataUpdatedAt: number };
        if (data !== set || data?.pageParams?.length !== 1 || query.state.fetchStatus != "idle") return;
        if (tail.pages.length) {
          // Marked as the store's delivery again (see pagesDelivered): set after the fetch's own.
          const revs = pagesDelivered(query);
          tail.revs.forEach((rev, key) => revs.set(key, rev));
          const chain = { pages: [...data.pages, ...tail.pages], pageParams: [...data.pageParams, ...tail.pageParams] };
          query.setData(chain, { updatedAt: Math.min(dataUpdatedAt, tail.at), manual: false });
        }
        if (tail.failed) showFailed(query, tail.failed.req, tail.failed.error);
      });
  });
  return out;
}
