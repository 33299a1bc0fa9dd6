"use client";

import type { QueryClient } from "@tanstack/react-query";
import { useId, type ReactNode } from "react";
import { Badge } from "./Badge.tsx";
import type { SharedFetchStore } from "./core.ts";
import { KeyDetails } from "./KeyDetails.tsx";
import { clip, formatBytes, formatTime, shortId, WORKER } from "./format.ts";
import { splitLabel, statusName } from "./keys-query.ts";
import { seconds } from "./seconds.tsx";
import { styles } from "./styles.ts";
import { describeReason } from "./timeline-entry.ts";
import type { DevtoolsClaim, DevtoolsKeyRow, DevtoolsReplica } from "./types.ts";
import { useNow } from "./use-now.ts";

const HOLDER = { "this replica": "this tab", "same browser": "same browser", "other replica": "other device" } as const;
const TONE = { pending: "info", stale: "stale", success: "ok", error: "stale", idle: "info" } as const;
const PHASE: Record<string, string> = {
  locking: "waiting for the key's Web Lock",
  settling: "in its settle window",
  settled: "sending",
  running: "request in flight",
};

/**
 * Kept on one line: in a narrow dock the table scrolls sideways and each column fell to its longest
 * word ("claimed / ≥3.6 s / ago ·", "replica- / r"). Not a floor on the columns: a row with no claim
 * would widen the table for nothing (past an 800 px panel's edge).
 */
const whole = { whiteSpace: "nowrap" } as const;

/**
 * The URL with a line break allowed only after its separators (not in "://", nor before "…"): in a
 * narrow panel "api/re|port" broke wherever the column's edge fell. A segment longer than the
 * column still breaks inside (the header's overflow-wrap), so the row stays no wider.
 */
const breakable = (url: string) => url.split(/(?<=[^/:]\/|[?&·])(?!…)/).flatMap((part, i) => (i ? [<wbr key={i} />, part] : part));

/** One key: its request, who holds it and for how long, what is recorded, and a details toggle. */
export function KeyRow({
  row,
  store,
  replicas,
  queryClient,
  index,
  open,
  json,
  onToggle,
  frozen,
  worker,
}: {
  row: DevtoolsKeyRow;
  /** The inspected replica is this browser's SharedWorker (snapshot.worker): "me" is not this tab. */
  worker?: true | undefined;
  frozen?: string | undefined;
  /** Its details are shown (kept by the list: the row unmounts when scrolled out of view). */
  open: boolean;
  /** Its details' JSON preview is shown (kept by the list too, toggled as " " + key). */
  json: boolean;
  onToggle: (key: string) => void;
  /** Its place in the filtered list (0-based), for aria-rowindex: only a window of rows is rendered. */
  index: number;
  store: SharedFetchStore;
  replicas: readonly DevtoolsReplica[];
  queryClient?: QueryClient | undefined;
}) {
  const { claim, result, error } = row;
  const { method, url } = splitLabel(row.label);
  // Unique in the page: two panels (the floating one and a plugin) may show the same key.
  const detailsId = useId();
  return (
    <>
      <tr
        data-testid="key-row"
        data-key={row.key}
        aria-rowindex={index + 2}
        data-status={row.status}
        data-holder={claim?.replicaId ?? "none"}
        data-result-rev={result?.rev ?? "none"}
      >
        <th scope="row" style={styles.rowHeader} title={row.key}>
          {method && <strong>{method} </strong>}
          {breakable(url)}
        </th>
        <td style={styles.td}>{row.kind}</td>
        <td style={styles.td}>
          <Badge tone={TONE[row.status]}>{statusName(row.status)}</Badge>
        </td>
        <td
          style={styles.td}
          data-testid="holder"
          title={claim?.replicaId}
          data-phase={row.attempt?.phase ?? (row.waitsForSync ? "sync" : undefined)}
        >
          {holder(row, worker)}
          {claim?.waiters && (
            <div style={styles.muted} data-testid="waiters">
              waited on by {claim.waiters.map((id) => (id === me(replicas) ? (worker ? WORKER : "me") : shortId(id))).join(", ")}
            </div>
          )}
          {claim?.failed && !claim.finished && (
            // The failure without its request (the row names it), whole in the title: a peer's string, cut.
            <div style={styles.muted} data-testid="retries" title={claim.failed.message}>
              retry {claim.failed.n} · {clip(claim.failed.message.split(" from ")[0]!, 80)}
            </div>
          )}
        </td>
        <td style={styles.td}>{claim ? <ClaimState claim={claim} frozen={!!frozen} /> : "—"}</td>
        <td style={styles.td} data-testid="result">
          {result ? (
            <>
              rev {result.rev} · {formatBytes(result.bytes)}
              {result.invalidated && " · invalidated"}
              <div style={styles.muted}>{writer(result, replicas, worker)}</div>
            </>
          ) : (
            (row.malformed && "malformed record") || "—"
          )}
        </td>
        <td style={{ ...styles.td, ...(error ? styles.error : {}) }} data-testid="error" title={error?.message}>
          {/* The message, not its status again: every message a store writes names its status ("HTTP 503 … from GET …"),
              and not the request the row names already: beside it, the other columns squeezed the cell to a few letters a line. */}
          {error ? `rev ${error.rev}: ${withoutRequest(error.message, row.label)}${error.invalidated ? " · invalidated" : ""}` : "—"}
        </td>
        <td style={styles.td}>
          <button
            type="button"
            style={{ ...styles.button, whiteSpace: "nowrap" }}
            aria-expanded={open}
            aria-controls={open ? detailsId : undefined}
            aria-label={`Details of ${row.label}`}
            onClick={() => onToggle(row.key)}
          >
            {/* Not "hide" once open: a speech-input user says the name it shows ("details"); aria-expanded tells the state, the arrow shows it. */}
            <span aria-hidden="true">{open ? "▾" : "▸"}</span> details
          </button>
        </td>
      </tr>
      {open && (
        <tr id={detailsId} data-details-of={row.key}>
          <td colSpan={8} style={styles.td}>
            <KeyDetails row={row} store={store} queryClient={queryClient} open={json} onToggle={onToggle} frozen={frozen} worker={worker} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * Who holds the key; for this store's own attempt, where it is on its way to the request. In a
 * SharedWorker tab the store's own claim is the worker's, made for whichever tabs asked: whether
 * this tab waits on it is what its reader needs.
 */
function holder({ claim, attempt, waitsForSync, local }: DevtoolsKeyRow, worker?: true): ReactNode {
  // Disowned: under this tab's id, so on no other device, but not made by this store (a worker's id is its own, random: never).
  if (claim && !claim.mine)
    return (
      <>
        <span style={whole}>{shortId(claim.replicaId)}</span> ·{" "}
        {claim.reason === "disowned" ? "my id, not made by this tab (an earlier run's, or forged)" : HOLDER[claim.holder]}
      </>
    );
  if (!claim && !attempt && !waitsForSync) return "none";
  const phase = waitsForSync ? " · waiting for the sync" : attempt ? ` · ${PHASE[attempt.phase] ?? attempt.phase}` : "";
  return `${worker ? `${WORKER}${local && !claim?.finished ? " · this tab waits on it" : ""}` : "me (this tab)"}${phase}`;
}

/** "HTTP 503 … from GET https://…" without " from GET https://…" when that is the row's own request (the whole message stays in the title). */
const withoutRequest = (message: string, label: string) =>
  message.endsWith(` from ${label}`) ? message.slice(0, -label.length - 6) : message;

const me = (replicas: readonly DevtoolsReplica[]) => replicas.find((r) => r.me)?.replicaId;

function writer(rec: { by?: string; at?: number }, replicas: readonly DevtoolsReplica[], worker?: true): string {
  const who =
    rec.by === undefined ? "writer not named" : rec.by === me(replicas) ? `by ${worker ? WORKER : "me"}` : `by ${shortId(rec.by)}`;
  return `${who} · ${rec.at === undefined ? "before this panel started" : formatTime(rec.at)}`;
}

/** Revision, the store's verdict and why, how long it has been silent, and a live countdown to stale. */
function ClaimState({ claim, frozen }: { claim: DevtoolsClaim; frozen: boolean }) {
  // A frozen view (a crashed or destroyed replica: its last one) is judged no further: no countdown, no age or silence growing.
  const counting = !frozen && !claim.mine && !claim.stale && !claim.finished && Number.isFinite(claim.staleAt);
  const aged = !claim.finished && claim.seenAt !== undefined;
  const now = useNow(counting || (aged && !frozen));
  return (
    <span data-testid="claim-state" data-reason={claim.reason ?? ""}>
      rev {claim.rev}{" "}
      {claim.finished ? (
        <Badge tone="info">finished</Badge>
      ) : claim.stale ? (
        <Badge tone="stale">{`stale: ${claim.reason ? describeReason(claim.reason) : "?"}`}</Badge>
      ) : (
        <Badge tone="ok">live</Badge>
      )}
      {aged && (
        <span
          style={{ ...styles.muted, ...whole }}
          data-testid="claim-age"
          title={
            claim.seenAtStart
              ? "it stood when this panel started: measured from then, on this panel's clock (it may be older)"
              : "measured from when this panel first saw the claim, on its own clock"
          }
        >
          {` claimed ${claim.seenAtStart ? "≥" : ""}`}
          {seconds(now - claim.seenAt!)}
          {" ago "}
        </span>
      )}
      {!claim.mine && !claim.finished && (
        <span style={styles.muted}>
          {aged && "· "}silent {seconds(frozen ? claim.silentMs : Math.max(claim.silentMs, now - (claim.silentSince ?? Infinity)))}
          {counting && " · stale in "}
          {counting && seconds(claim.staleAt - now)}
          {!counting && !claim.stale && Number.isFinite(claim.staleAt) === false && " · watched by its Web Lock"}
        </span>
      )}
    </span>
  );
}
