"use client";

import type { QueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { SharedFetchStore } from "./core.ts";
import { KeyRow } from "./KeyRow.tsx";
import { HeaderRow } from "./HeaderRow.tsx";
import { queryKeys, statusName, STATUSES, type KeySort, type KeysQuery } from "./keys-query.ts";
import { styles } from "./styles.ts";
import type { DevtoolsSnapshot } from "./types.ts";
import { useVirtualRows } from "./use-virtual-rows.ts";

const COLUMNS = ["Request", "Kind", "Status", "Holder", "Claim", "Result", "Error", "Actions"];

const SORTS: { id: KeySort; name: string }[] = [
  { id: "request", name: "request" },
  { id: "status", name: "status" },
  { id: "revision", name: "revision (newest)" },
  { id: "size", name: "result size" },
  { id: "written", name: "last written" },
];

/** Counts by status (also the status filter), search, sort, and the rows in view: 1 000 keys render a screenful. */
export function KeysView({
  snapshot,
  store,
  queryClient,
  replica,
  onReplica,
  frozen,
}: {
  snapshot: DevtoolsSnapshot;
  /** Why the inspected replica writes nothing more, if it does not: its writing actions are off. */
  frozen?: string | undefined;
  store: SharedFetchStore;
  queryClient?: QueryClient | undefined;
  /** The replica filter, kept by the panel: the Replicas tab sets it too. */
  replica: string;
  onReplica: (replicaId: string) => void;
}) {
  const [q, setQ] = useState<KeysQuery>({ status: "all", search: "", sort: "request" });
  // Here, not in each row: a row leaves the DOM when it scrolls out of view or its key moves in the
  // sort, and its details (and their JSON preview, under " " + key) must still be open when it is back.
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (key: string) =>
    setOpened((old) => {
      const next = new Set(old);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const rows = useMemo(() => queryKeys(snapshot.keys, { ...q, replica }), [snapshot.keys, q, replica]);
  // The chosen replica stays listed once gone, so the select never claims "any" over a filtered list.
  const ids = new Set(snapshot.replicas.map((r) => r.replicaId).concat(replica || []));
  const keys = useMemo(() => rows.map((r) => r.key), [rows]);
  const { attach, onScroll, start, end, top, bottom } = useVirtualRows(keys);
  if (snapshot.keys.length === 0) return <p style={styles.empty}>No keys in the doc yet.</p>;
  const set = (patch: Partial<KeysQuery>) => setQ((old) => ({ ...old, ...patch }));
  return (
    <>
      <div style={styles.toolbar} role="group" aria-label="Filter keys by status">
        <FilterButton pressed={q.status === "all"} onClick={() => set({ status: "all" })} label={`all ${snapshot.keys.length}`} />
        {STATUSES.map((s) => (
          <FilterButton
            key={s}
            pressed={q.status === s}
            onClick={() => set({ status: s })}
            label={`${statusName(s)} ${snapshot.counts[s]}`}
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
        <label>
          Replica{" "}
          <select value={replica} onChange={(e) => onReplica(e.target.value)} style={styles.input}>
            <option value="">any</option>
            {[...ids].map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <span style={styles.muted} data-testid="shown">
          {rows.length} key{rows.length === 1 ? "" : "s"}
          {/* Only when the list is longer than what is rendered: "rows 1–1 rendered" told nothing. */}
          {end - start < rows.length && ` · showing ${start + 1}–${end}`}
        </span>
      </div>
      {/* Its own scroller, focusable: arrows and Page Up/Down scroll it from the keyboard and reveal later rows. */}
      <div
        ref={attach}
        onScroll={onScroll}
        style={styles.scroller}
        tabIndex={0}
        role="region"
        aria-label="Keys list"
        data-testid="keys-scroller"
      >
        <table style={styles.table} aria-label="Keys" aria-rowcount={rows.length + 1}>
          <HeaderRow names={COLUMNS} />
          <tbody>
            {top > 0 && <Spacer px={top} />}
            {rows.slice(start, end).map((row, i) => (
              <KeyRow
                key={row.key}
                row={row}
                index={start + i}
                open={opened.has(row.key)}
                json={opened.has(` ${row.key}`)}
                onToggle={toggle}
                store={store}
                replicas={snapshot.replicas}
                worker={snapshot.worker}
                queryClient={queryClient}
                frozen={frozen}
              />
            ))}
            {bottom > 0 && <Spacer px={bottom} />}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The height of the rows not rendered, so the scrollbar tells the whole list. */
function Spacer({ px }: { px: number }) {
  return (
    <tr aria-hidden="true" style={{ height: px }}>
      <td colSpan={COLUMNS.length} style={{ padding: 0, border: 0 }} />
    </tr>
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
