"use client";

import { useMemo, useState } from "react";
import { formatTime, shortId, WORKER } from "./format.ts";
import { styles } from "./styles.ts";
import { describeEntry, matches, replicasOf, type TimelineFilter } from "./timeline-entry.ts";
import type { DevtoolsSnapshot } from "./types.ts";

const SHOWN = 200;

/** The cross-replica story, newest first, filterable by key and by replica. */
export function TimelineView({ snapshot }: { snapshot: DevtoolsSnapshot }) {
  const [key, setKey] = useState("");
  const [replica, setReplica] = useState("");
  const filter: TimelineFilter = useMemo(() => ({ ...(key ? { key } : {}), ...(replica ? { replicaId: replica } : {}) }), [key, replica]);
  const entries = useMemo(() => snapshot.timeline.filter((e) => matches(e, filter)), [snapshot.timeline, filter]);
  // In a SharedWorker tab the inspected replica is the worker, every tab's: not "this tab".
  const self = snapshot.worker ? WORKER : "this tab";
  const name = (id: string) => (id === snapshot.replicaId ? self : shortId(id));
  // Every replica the timeline names, not only those with a claim, beat or presence now: a
  // replica whose work is done stays a filter for what it did.
  const replicas = useMemo(() => {
    const ids = new Set(snapshot.replicas.map((r) => r.replicaId));
    for (const entry of snapshot.timeline) for (const id of replicasOf(entry)) ids.add(id);
    // The chosen ones stay choices once their entries aged out of the timeline: the select showed a blank.
    if (replica) ids.add(replica);
    return [...ids];
  }, [snapshot.replicas, snapshot.timeline, replica]);
  const keys = useMemo(() => {
    const labels = new Map(snapshot.timeline.filter((e) => e.key !== undefined).map((e) => [e.key!, e.label ?? e.key!]));
    if (key && !labels.has(key)) labels.set(key, key);
    return [...labels];
  }, [snapshot.timeline, key]);
  return (
    <>
      <div style={styles.toolbar}>
        <label>
          Key{" "}
          <select value={key} onChange={(e) => setKey(e.target.value)} style={styles.input}>
            <option value="">all keys</option>
            {keys.map(([k, label]) => (
              <option key={k} value={k}>
                {label.slice(0, 80)} ({k.slice(0, 8)})
              </option>
            ))}
          </select>
        </label>
        <label>
          Replica{" "}
          <select value={replica} onChange={(e) => setReplica(e.target.value)} style={styles.input}>
            <option value="">all replicas</option>
            {replicas.map((id) => (
              <option key={id} value={id}>
                {id === snapshot.replicaId ? `${shortId(id)} (${self})` : shortId(id)}
              </option>
            ))}
          </select>
        </label>
        <span style={styles.muted}>times on this panel&apos;s clock</span>
      </div>
      {entries.length === 0 ? (
        <p style={styles.empty}>Nothing has happened since the panel started{key || replica ? " (for this filter)" : ""}.</p>
      ) : (
        // Numbered oldest first (1 = the oldest kept), as the scenarios narrate, though listed newest first.
        <ol style={styles.list} aria-label="Timeline, newest first" reversed start={entries.length}>
          {entries.slice(0, SHOWN).map((e) => (
            <li
              key={e.seq}
              data-testid="timeline-entry"
              data-type={e.type}
              data-reason={"reason" in e ? e.reason : ""}
              style={styles.listItem}
            >
              <time style={styles.muted}>{formatTime(e.at)}</time> {describeEntry(e, name)}
            </li>
          ))}
        </ol>
      )}
      {entries.length > SHOWN && <p style={styles.muted}>{entries.length - SHOWN} older entries not shown: filter by key or replica.</p>}
    </>
  );
}
