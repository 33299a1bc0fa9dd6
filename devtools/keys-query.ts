import type { DevtoolsKeyRow, DevtoolsKeyStatus } from "./types.ts";

export type KeySort = "request" | "status" | "revision" | "size" | "written";
/** `replica`: only keys whose claim that replica holds or waits on (absent or "": any). */
export type KeysQuery = { status: DevtoolsKeyStatus | "all"; search: string; sort: KeySort; replica?: string | undefined };
export const STATUSES: readonly DevtoolsKeyStatus[] = ["pending", "stale", "success", "error", "idle"];
/** As the panel writes a status: "stale" is the claim's (nobody live works on it), never TanStack's stale data. */
export const statusName = (s: DevtoolsKeyStatus): string => (s === "stale" ? "claim stale" : s);

const ORDER: Record<DevtoolsKeyStatus, number> = { stale: 0, pending: 1, error: 2, success: 3, idle: 4 };
// The later of its result and its error: a failed refetch writes an error beside an older result.
const written = (r: DevtoolsKeyRow) => Math.max(r.result?.at ?? -1, r.error?.at ?? -1);
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
// Numbers in URLs in their order (…/9, …/10, …/99, …/100), not as characters (…/10, …/100, …/9).
const natural = new Intl.Collator(undefined, { numeric: true }).compare;

/** Filter, search and sort, React-free: a thousand rows in well under a frame. */
export function queryKeys(rows: readonly DevtoolsKeyRow[], q: KeysQuery): DevtoolsKeyRow[] {
  const needle = q.search.trim().toLowerCase();
  const out = rows.filter(
    (r) =>
      (q.status === "all" || r.status === q.status) &&
      (!q.replica || r.claim?.replicaId === q.replica || !!r.claim?.waiters?.includes(q.replica)) &&
      (needle === "" || r.label.toLowerCase().includes(needle) || r.key.startsWith(needle)),
  );
  const by: Record<KeySort, (a: DevtoolsKeyRow, b: DevtoolsKeyRow) => number> = {
    request: (a, b) => natural(a.label, b.label),
    status: (a, b) => ORDER[a.status] - ORDER[b.status],
    revision: (a, b) => b.recorded - a.recorded,
    size: (a, b) => (b.result?.bytes ?? -1) - (a.result?.bytes ?? -1),
    written: (a, b) => written(b) - written(a),
  };
  // Stable tie-break on the key: rows never jump between renders.
  return out.sort((a, b) => by[q.sort](a, b) || cmp(a.key, b.key));
}

/** "GET https://host/path" → method and URL (labels never hold a query string, header or body). */
export function splitLabel(label: string): { method: string; url: string } {
  const space = label.indexOf(" ");
  return space > 0 && space < 8 ? { method: label.slice(0, space), url: label.slice(space + 1) } : { method: "", url: label };
}
