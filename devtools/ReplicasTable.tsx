import { HeaderRow } from "./HeaderRow.tsx";
import { describeSettle, formatTime, shortId } from "./format.ts";
import { seconds } from "./seconds.tsx";
import { styles } from "./styles.ts";
import type { DevtoolsReplica, DevtoolsSnapshot } from "./types.ts";
import { useNow } from "./use-now.ts";

/**
 * Every replica seen in claims, heartbeats or awareness; the inspected one first. Above them, the
 * settle window a claim of the inspected replica would wait, as of the last inspection, and whether
 * Web Locks refused the replica (no key lock decides between its browser's tabs then). Each row's
 * "keys" button opens the Keys tab filtered to the keys that replica holds a claim on or waits on.
 */
export function ReplicasTable({
  snapshot,
  onShowKeys,
  frozen,
}: {
  snapshot: DevtoolsSnapshot;
  onShowKeys: (replicaId: string) => void;
  frozen: boolean;
}) {
  const { replicas: rows, hasAwareness, settle, at } = snapshot;
  // A heartbeat's age runs on between inspections (a silent replica changes nothing in the doc), but
  // not in a frozen view (a crashed or destroyed replica's last one), which is judged no further.
  const now = useNow(!frozen);
  const ran = frozen ? 0 : Math.max(0, now - at);
  return (
    <>
      {settle && (
        <p style={styles.muted} data-testid="settle-window" data-why={settle.why} data-ms={settle.ms}>
          {/* Read at the last inspection, not ticking: "now" alone read as the current time. */}A claim made now, as of the last inspection
          ({formatTime(at)}): {describeSettle(settle.ms, settle.why, settle.tripMs, settle.refused)}
          {settle.fenced && settle.ms > 0 ? ", then the sync server's order" : ""}
          {settle.eager ? " (eager: a racing claim of its revision yields to it)" : ""}
        </p>
      )}
      {!hasAwareness && <p style={styles.empty}>No awareness given: presence unknown, replicas that hold nothing are not listed.</p>}
      <table style={styles.table} aria-label="Replicas">
        <HeaderRow names={["Replica", "Where", "Present", "Heartbeats", "Claims", "Waits on", "Identity"]} />
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.replicaId}
              data-testid="replica-row"
              data-replica-id={r.replicaId}
              data-present={r.present === undefined ? "unknown" : String(r.present)}
            >
              {/* The keys' floor (12rem, for URLs) took over half of a 380 px dock for an id that wraps anywhere. */}
              <th scope="row" style={{ ...styles.rowHeader, minWidth: "6rem" }} title={r.replicaId}>
                {shortId(r.replicaId, 24)}
                {/* A SharedWorker tab is no replica of its own: it views the worker's (its row says where). */}
                {r.me && <strong>{snapshot.worker ? " (viewed by this tab)" : " (me)"}</strong>}
              </th>
              <td style={styles.td} title={r.browserId}>
                {r.where}
              </td>
              <td style={styles.td} data-testid="present">
                {presence(r)}
              </td>
              <td style={styles.td} data-testid="heartbeat">
                {/* How many it wrote, and the last one's age in seconds, as the Keys tab's silence of its claims. */}
                {r.heartbeat ?? "—"}
                {r.heartbeat !== undefined && r.heartbeatAgeMs !== undefined && <>, last {seconds(r.heartbeatAgeMs + ran)} ago</>}
              </td>
              {/* The count and its button as one: squeezed, the button wrapped under the count. */}
              <td style={{ ...styles.td, whiteSpace: "nowrap" }}>
                {r.claims}{" "}
                <button type="button" style={styles.button} onClick={() => onShowKeys(r.replicaId)} aria-label={`Keys of ${r.replicaId}`}>
                  {r.claims === 1 ? "key" : "keys"}
                </button>
              </td>
              <td style={styles.td} data-testid="waits" title={r.waits?.join(" ")}>
                {r.waits?.map((key) => snapshot.keys.find((k) => k.key === key)?.label ?? shortId(key)).join(", ") ?? "—"}
              </td>
              <td style={styles.td} title="Short SHA-256 of the store's identity (others' identities are hashed into keys)">
                {r.identityHash ?? "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function presence(r: DevtoolsReplica): string {
  const since = r.since === undefined ? "" : ` since ${formatTime(r.since)}`;
  if (r.departed === "lock-released") return `absent: lock released${since}`;
  if (r.departed === "presence-left") return `absent: presence left${since}`;
  if (r.present === undefined) return "?";
  return r.present ? `present${since}` : `absent${since}`;
}
