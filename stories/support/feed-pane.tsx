import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, type CSSProperties } from "react";
import { sharedInfiniteQueryOptions } from "../../src/index.ts";
import type { HostCall } from "../../sim/host.ts";
import { stateText } from "./query-state.tsx";
import { shortOf, type Replica, type Replicas } from "./replicas.ts";

/** One page of the feed: its cursor, its items, the next cursor, and the host call that answered it. */
export type FeedPage = { page: number; items: string[]; next: number | null; request: number };

export const PAGES = 3;

/** Page n of the feed, answered from the last segment of the URL the host was sent. */
export function respondFeed(call: HostCall): FeedPage {
  const page = Number(new URL(call.url).pathname.split("/").at(-1));
  return { page, items: [`item ${page * 2 + 1}`, `item ${page * 2 + 2}`], next: page < PAGES - 1 ? page + 1 : null, request: call.n };
}

const styles = {
  pane: { border: "1px solid #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif", fontSize: 14 },
  list: { margin: "0.25rem 0 0.75rem", paddingLeft: "1.2rem" },
} satisfies Record<string, CSSProperties>;

/** "0@1 1@2": each page shown and the host call that answered it. */
const pagesText = (pages: readonly FeedPage[]) => pages.map((p) => `${p.page}@${p.request}`).join(" ");

/**
 * One tab's feed: `useInfiniteQuery(sharedInfiniteQueryOptions(…))` on its own store and
 * QueryClient. Its section keeps what it showed first (data-first-pages: a reload's recorded chain
 * is there before any fetch) and every set of pages it showed (data-pages-seen: a refresh reaching
 * it page by page, a mix of two refreshes, would show there).
 */
export function FeedPane({ world, replica, url }: { world: Replicas; replica: Replica; url: string }) {
  const feed = useMemo(
    () =>
      sharedInfiniteQueryOptions(replica.store, (cursor: number) => `${url}/${cursor}`, {
        initialPageParam: 0,
        getNextPageParam: (last: FeedPage) => last.next,
        staleTime: 60_000,
      }),
    [replica.store, url],
  );
  const q = useInfiniteQuery(feed);
  const client = useQueryClient();
  const pages = q.data?.pages ?? [];
  const last = pages.at(-1);
  const shown = pagesText(pages);
  const first = useRef(shown);
  const seen = useRef<string[]>([]);
  if (seen.current.at(-1) !== shown) seen.current.push(shown); // eslint-disable-line react-hooks/refs
  const who = shortOf(replica.name);
  // Told per page shown, whoever fetched it: a page taken from another tab's record makes no other line.
  useEffect(() => {
    if (last) world.narration.add({ text: `${who} shows page ${last.page} (host answer #${last.request})`, replica: who });
  }, [world, who, last]);
  const more = () => {
    world.narration.add({ text: `${who} loads more (page ${pages.length})`, replica: who });
    void q.fetchNextPage();
  };
  const refresh = () => {
    world.narration.add({ text: `${who} refreshes the feed (invalidateQueries)`, replica: who });
    void client.invalidateQueries({ queryKey: feed.queryKey });
  };
  return (
    <section
      aria-label={replica.name}
      style={styles.pane}
      data-status={q.status}
      data-pages={shown}
      data-first-pages={first.current} // eslint-disable-line react-hooks/refs
      data-pages-seen={seen.current.filter(Boolean).join(" > ")} // eslint-disable-line react-hooks/refs
    >
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name}</h2>
      <div data-testid="status">
        {stateText(q)}
        {q.isFetchingNextPage ? " (loading more)" : ""}
      </div>
      <ol style={styles.list} data-testid="pages">
        {pages.map((p) => (
          <li key={p.page}>
            page {p.page}: {p.items.join(", ")} <span style={{ color: "#5a6470" }}>(host answer #{p.request})</span>
          </li>
        ))}
      </ol>
      <button type="button" onClick={more} disabled={!q.hasNextPage || q.isFetchingNextPage}>
        Load more
      </button>{" "}
      <button type="button" onClick={refresh} disabled={!pages.length}>
        Refresh
      </button>
    </section>
  );
}
