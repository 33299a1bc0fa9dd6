import { HeaderRow } from "./HeaderRow.tsx";
import { Badge } from "./Badge.tsx";
import { formatBytes, shortId } from "./format.ts";
import { styles } from "./styles.ts";
import type { DevtoolsClaim, DevtoolsKeyRow } from "./types.ts";

/** One row per key found in any table: who holds it, what is recorded, what failed. */
export function KeysTable({ rows }: { rows: readonly DevtoolsKeyRow[] }) {
  if (rows.length === 0) return <p style={styles.empty}>No keys in the doc yet.</p>;
  return (
    <table style={styles.table} aria-label="Keys">
      <HeaderRow names={["Request", "Kind", "Holder", "Claim", "Result", "Error", "Actions"]} />
      <tbody>
        {rows.map((row) => (
          <KeyRow key={row.key} row={row} />
        ))}
      </tbody>
    </table>
  );
}

function KeyRow({ row }: { row: DevtoolsKeyRow }) {
  const { claim, result, error } = row;
  return (
    <tr data-testid="key-row" data-key={row.key} data-holder={claim?.replicaId ?? "none"} data-result-rev={result?.rev ?? "none"}>
      <th scope="row" style={{ ...styles.td, fontWeight: "normal", textAlign: "left" }} title={row.key}>
        {row.label}
        {row.lastAskedAt !== undefined && (
          <div style={styles.muted} title="The asker's clock, not this machine's">
            asked {new Date(row.lastAskedAt).toLocaleString()}
          </div>
        )}
      </th>
      <td style={styles.td}>{row.kind}</td>
      <td style={styles.td} data-testid="holder" title={claim?.replicaId}>
        {claim ? (claim.mine ? "me" : shortId(claim.replicaId)) : "none"}
      </td>
      <td style={styles.td}>{claim ? <ClaimState claim={claim} /> : "—"}</td>
      <td style={styles.td} data-testid="result">
        {result ? `rev ${result.rev} · ${formatBytes(result.bytes)}` : "—"}
      </td>
      <td style={{ ...styles.td, ...(error ? styles.error : {}) }} data-testid="error">
        {error ? `rev ${error.rev}: ${error.message}${error.status !== undefined ? ` (HTTP ${error.status})` : ""}` : "—"}
      </td>
      <td style={styles.td}>
        <CopyKey value={row.key} label={row.label} />
      </td>
    </tr>
  );
}

function ClaimState({ claim }: { claim: DevtoolsClaim }) {
  return (
    <span data-testid="claim-state">
      rev {claim.rev}{" "}
      {claim.finished ? (
        <Badge tone="info">finished</Badge>
      ) : claim.stale ? (
        <Badge tone="stale">stale</Badge>
      ) : (
        <Badge tone="ok">live</Badge>
      )}
      {claim.abandoned && <Badge tone="stale">abandoned</Badge>}
      {claim.holderPresent === false && <Badge tone="stale">holder absent</Badge>}
      {claim.leaseExpired && <Badge tone="stale">{`silent > ${claim.leaseMs} ms`}</Badge>}
    </span>
  );
}

/** The key is the one handle the store, the doc and the logs share. */
function CopyKey({ value, label }: { value: string; label: string }) {
  const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
  if (!clipboard) return null;
  return (
    <button type="button" style={styles.button} aria-label={`Copy key of ${label}`} onClick={() => clipboard.writeText(value).catch(() => {})}>
      copy key
    </button>
  );
}
