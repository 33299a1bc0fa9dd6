import { HeaderRow } from "./HeaderRow.tsx";
import { shortId } from "./format.ts";
import { styles } from "./styles.ts";
import type { DevtoolsReplica } from "./types.ts";

/** Every replica seen in claims, heartbeats or awareness; the inspected one first. */
export function ReplicasTable({ rows, hasAwareness }: { rows: readonly DevtoolsReplica[]; hasAwareness: boolean }) {
  return (
    <>
      {!hasAwareness && <p style={styles.empty}>No awareness given: presence unknown, replicas that hold nothing are not listed.</p>}
      <table style={styles.table} aria-label="Replicas">
        <HeaderRow names={["Replica", "Present", "Browser", "Heartbeat", "Claims"]} />
        <tbody>
          {rows.map((r) => (
            <tr key={r.replicaId} data-testid="replica-row" data-replica-id={r.replicaId} data-present={r.present === undefined ? "unknown" : String(r.present)}>
              <th scope="row" style={{ ...styles.td, fontWeight: "normal", textAlign: "left" }} title={r.replicaId}>
                {shortId(r.replicaId, 24)}
                {r.me && <strong> (me)</strong>}
              </th>
              <td style={styles.td}>{r.present === undefined ? "?" : r.present ? "yes" : "no"}</td>
              <td style={styles.td} title={r.browserId}>
                {r.browserId ? shortId(r.browserId) : "—"}
              </td>
              <td style={styles.td}>{r.heartbeat ?? "—"}</td>
              <td style={styles.td}>{r.claims}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
