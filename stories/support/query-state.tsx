import type { FetchStatus } from "@tanstack/react-query";
import { inSeconds } from "../../devtools/format.ts";
import { useNow } from "../../devtools/use-now.ts";

/**
 * A query's state in TanStack's own words, as its devtools and docs name it: `status · fetchStatus`
 * ("pending · fetching", "success · idle", "error · paused"). A bare "success" or "pending
 * (fetching)" left a TanStack reader guessing which of the two states a pane meant.
 */
export const stateText = (q: { status: string; fetchStatus: FetchStatus }): string => `${q.status} · ${q.fetchStatus}`;

/**
 * How old the shown data is and whether TanStack counts it stale ("1.2 s ago · stale"), from
 * `dataUpdatedAt`: a tab that joined another replica's request dates the answer when that request
 * was sent (the record's `at`), not when this tab heard of it; the tab that fetched dates it as
 * TanStack does, when its answer came home. Ticks while shown; `frozen`: a crashed tab's last
 * screen, which ages no further.
 */
export function DataAge({ q, frozen }: { q: { dataUpdatedAt: number; isStale: boolean }; frozen?: boolean | undefined }) {
  const now = useNow(q.dataUpdatedAt > 0 && !frozen, 500);
  if (q.dataUpdatedAt === 0) return <>—</>;
  return <>{`${inSeconds(now - q.dataUpdatedAt)} ago · ${q.isStale ? "stale" : "fresh"}`}</>;
}
