import type { QueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { SharedFetchStore } from "./core.ts";
import { KeyRow } from "./KeyRow.tsx";
import { HeaderRow } from "./HeaderRow.tsx";
import { PAGE_SIZE, queryKeys, STATUSES, type KeySort, type KeysQuery } from "./keys-query.ts";
import { styles } from "./styles.ts";
import type { DevtoolsSnapshot } from "./types.ts";

const SORTS: { id: KeySort; name: string }[] = [
  { id: "request", name: "request" },
  { id: "status", name: "status" },
  { id: "revision", name: "revision (newest)" },
  { id: "size", name: "result size" },
  { id: "written", name: "last written" },
];

/** Counts by status (also the status filter), search, sort, and one page of rows at a time. */
export function KeysView({
  snapshot,
  store,
  queryClient,
}: {
  snapshot: DevtoolsSnapshot;
  store: SharedFetchStore;
  queryClient?: QueryClient | undefined;
}) {
  const [q, setQ] = useState<KeysQuery>({ status: "all", search: "", sort: "request", page: 0 });
  const rows = useMemo(() => queryKeys(snapshot.keys, q), [snapshot.keys, q]);
  if (snapshot.keys.length === 0) return <p style={styles.empty}>No keys in the doc yet.</p>;
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const page = Math.min(q.page, pages - 1);
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  const set = (patch: Partial<KeysQuery>) => setQ((old) => ({ ...old, page: 0, ...patch }));
  return (
    <>
      <div style={styles.toolbar} role="group" aria-label="Filter keys by status">
        <FilterButton pressed={q.status === "all"} onClick={() => set({ status: "all" })} label={`all ${snapshot.keys.length}`} />
        {STATUSES.map((s) => (
          <FilterButton
            key={s}
            pressed={q.status === s}
            onClick={() => set({ status: s })}
            label={`${s} ${snapshot.counts[s]}`}
            testId={`count-${s}`}
          />
        ))}
      </div>
      <div style={styles.toolbar}>
        <label>
          Search{" "}
          <input
            type="search"
            value={q.search}
            onChange={(e) => set({ search: e.target.value })}
            placeholder="URL or key"
            style={styles.input}
          />
        </label>
        <label>
          Sort by{" "}
          <select value={q.sort} onChange={(e) => set({ sort: e.target.value as KeySort })} style={styles.input}>
            {SORTS.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <Pager page={page} pages={pages} total={rows.length} onPage={(p) => setQ((old) => ({ ...old, page: p }))} />
      </div>
      <table style={styles.table} aria-label="Keys">
        <HeaderRow names={["Request", "Kind", "Status", "Holder", "Claim", "Result", "Error", "Actions"]} />
        <tbody>
          {shown.map((row) => (
            <KeyRow key={row.key} row={row} store={store} replicas={snapshot.replicas} queryClient={queryClient} />
          ))}
        </tbody>
      </table>
    </>
  );
}

function FilterButton({ pressed, onClick, label, testId }: { pressed: boolean; onClick: () => void; label: string; testId?: string }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      style={{ ...styles.button, ...(pressed ? styles.pressed : {}) }}
      data-testid={testId}
    >
      {label}
    </button>
  );
}

/** Long lists are paginated: a page of 50 rows renders in a few ms however many keys there are. */
function Pager({ page, pages, total, onPage }: { page: number; pages: number; total: number; onPage: (page: number) => void }) {
  return (
    <span style={styles.muted} data-testid="pager">
      <button type="button" style={styles.button} disabled={page === 0} onClick={() => onPage(page - 1)} aria-label="Previous page of keys">
        ‹
      </button>{" "}
      page {page + 1} of {pages} ({total} keys){" "}
      <button
        type="button"
        style={styles.button}
        disabled={page >= pages - 1}
        onClick={() => onPage(page + 1)}
        aria-label="Next page of keys"
      >
        ›
      </button>
    </span>
  );
}
