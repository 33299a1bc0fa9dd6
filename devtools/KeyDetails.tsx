import type { QueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { copyText, evictRecord, jsonPreview, recordedData, refetchKey, releaseClaim, type ActionResult } from "./actions.ts";
import type { SharedFetchStore } from "./core.ts";
import { formatBytes } from "./format.ts";
import { invalidateKey } from "./invalidate.ts";
import { styles } from "./styles.ts";
import type { DevtoolsKeyRow } from "./types.ts";

/** Actions on one key and a collapsible preview of its recorded JSON (read only when opened). */
export function KeyDetails({
  row,
  store,
  queryClient,
}: {
  row: DevtoolsKeyRow;
  store: SharedFetchStore;
  queryClient?: QueryClient | undefined;
}) {
  const [message, setMessage] = useState("");
  const [preview, setPreview] = useState<{ text: string; truncated: boolean } | undefined>(undefined);
  const report = (result: ActionResult, done: string) => setMessage(result.ok ? done : result.message);
  const togglePreview = () => {
    if (preview) return setPreview(undefined);
    const found = recordedData(store, row.key);
    setPreview(found.found ? jsonPreview(found.data) : { text: "(no result recorded)", truncated: false });
  };
  return (
    <div data-testid="key-details">
      <div style={styles.toolbar} role="group" aria-label={`Actions on ${row.label}`}>
        <button
          type="button"
          style={styles.button}
          disabled={!row.local}
          title={row.local ? undefined : "Only a replica that asked for the key knows its request"}
          onClick={() => report(refetchKey(store, row.key), "Refetch asked: a new revision is claimed now.")}
        >
          refetch
        </button>
        <button
          type="button"
          style={styles.button}
          disabled={!row.result && !row.error && !queryClient}
          title={`Mark it stale for every replica: the next mount, focus or poll anywhere fetches again${queryClient ? "; this tab's active queries refetch now" : ""}`}
          onClick={() => {
            const done = invalidateKey(store, row.key, { label: row.label, ...(queryClient ? { queryClient } : {}) });
            report(done, `Marked stale for every replica${done.queryClient ? "; this tab's queries invalidated" : ""}.`);
          }}
        >
          invalidate
        </button>
        <button
          type="button"
          style={styles.button}
          disabled={!row.claim?.mine}
          onClick={() => report(releaseClaim(store, row.key), "Claim released.")}
        >
          release my claim
        </button>
        <button
          type="button"
          style={styles.button}
          disabled={!row.result && !row.error}
          onClick={() => report(evictRecord(store, row.key), "Record evicted from the doc.")}
        >
          evict record
        </button>
        <button type="button" style={styles.button} onClick={() => void copyText(row.key).then((r) => report(r, "Key copied."))}>
          copy key
        </button>
        <button
          type="button"
          style={styles.button}
          disabled={!row.result}
          onClick={() => void copyText(jsonPreview(recordedData(store, row.key).data).text).then((r) => report(r, "JSON copied."))}
        >
          copy JSON
        </button>
        <button type="button" style={styles.button} aria-expanded={!!preview} disabled={!row.result} onClick={togglePreview}>
          {preview ? "hide JSON" : `show JSON${row.result ? ` (${formatBytes(row.result.bytes)})` : ""}`}
        </button>
        <span role="status" style={styles.muted}>
          {message}
        </span>
      </div>
      <div style={styles.muted}>key {row.key}</div>
      {preview && (
        <pre style={styles.pre} data-testid="json-preview" tabIndex={0} aria-label={`Recorded JSON of ${row.label}`}>
          {preview.text}
          {preview.truncated && "\n… (truncated at 1 MiB)"}
        </pre>
      )}
    </div>
  );
}
