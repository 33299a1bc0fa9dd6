"use client";

import type { QueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
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
  open,
  onToggle,
  frozen,
  worker,
}: {
  row: DevtoolsKeyRow;
  /** The inspected replica is this browser's SharedWorker: its claim is not this tab's, and this tab knows only the requests it shows. */
  worker?: true | undefined;
  /** Why the inspected replica writes nothing more (crashed, destroyed): its writing actions are off. */
  frozen?: string | undefined;
  store: SharedFetchStore;
  queryClient?: QueryClient | undefined;
  /** The JSON preview is shown: kept by the list, as the row leaves the DOM when scrolled out of view. */
  open: boolean;
  onToggle: (key: string) => void;
}) {
  const [message, setMessage] = useState("");
  // Read when opened, and again when the recorded result changes while open (a refetch, an invalidation).
  const resultAt = row.result ? `${row.result.rev}:${row.result.at ?? ""}:${row.result.bytes}` : "";
  const preview = useMemo(() => {
    if (!open) return undefined;
    const found = recordedData(store, row.key);
    return found.found ? jsonPreview(found.data) : { text: "(no result recorded)", truncated: false };
  }, [open, store, row.key, resultAt]); // eslint-disable-line react-hooks/exhaustive-deps
  const report = (result: ActionResult, done: string) => setMessage(result.ok ? done : result.message);
  // A greyed button says why in its title (its accessible description): what it lacks, or that nothing is written any more.
  // A title shows only to a mouse, and a disabled button takes no focus: the reasons are also written out under the
  // actions, one line per reason, so a keyboard or touch user reads them too.
  const refused = new Map<string, string[]>();
  const off = (label: string, why: string | false | undefined, title?: string) => {
    if (why) refused.set(why, [...(refused.get(why) ?? []), label]);
    return { disabled: !!why, title: why || title };
  };
  const noResult = !row.result && "No result recorded";
  return (
    <div data-testid="key-details">
      <div style={styles.toolbar} role="group" aria-label={`Actions on ${row.label}`}>
        <button
          type="button"
          style={styles.button}
          {...off(
            "refetch",
            frozen ?? (!row.local && `Only a ${worker ? "tab that shows" : "replica that asked for"} the key knows its request`),
          )}
          onClick={() => report(refetchKey(store, row.key), "Refetch asked: a new revision is claimed now.")}
        >
          refetch
        </button>
        <button
          type="button"
          style={styles.button}
          {...off(
            "invalidate",
            frozen ?? (!row.result && !row.error && !queryClient && "Nothing recorded to mark stale, and no QueryClient given"),
            `Mark it stale for every replica: the next mount, focus or poll anywhere fetches again${queryClient ? "; this tab's active queries refetch now" : ""}`,
          )}
          onClick={() => {
            const done = invalidateKey(store, row.key, queryClient ? { queryClient } : {});
            const stale = done.doc ? "Marked stale for every replica" : "Nothing recorded to mark stale";
            report(done, `${stale}${done.queryClient ? "; this tab's queries invalidated" : ""}.`);
          }}
        >
          invalidate
        </button>
        <button
          type="button"
          style={styles.button}
          {...off(
            `release ${worker ? "the SharedWorker's" : "my"} claim`,
            frozen ??
              (!row.claim ? "No claim stands on this key" : !row.claim.mine && `The claim is another replica's (${row.claim.replicaId})`),
          )}
          onClick={() => report(releaseClaim(store, row.key), "Claim released.")}
        >
          release {worker ? "the SharedWorker's" : "my"} claim
        </button>
        <button
          type="button"
          style={styles.button}
          {...off("evict record", frozen ?? (!row.result && !row.error && !row.malformed && "No record to evict"))}
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
          {...off("copy JSON", noResult)}
          // The whole JSON, not the preview's first MiB: a cut copy would not parse.
          onClick={() =>
            void copyText(jsonPreview(recordedData(store, row.key).data, Infinity).text).then((r) => report(r, "JSON copied."))
          }
        >
          copy JSON
        </button>
        <button
          type="button"
          style={styles.button}
          aria-expanded={open}
          {...off("show JSON", noResult)}
          onClick={() => onToggle(` ${row.key}`)}
        >
          {preview ? "hide JSON" : `show JSON${row.result ? ` (${formatBytes(row.result.bytes)})` : ""}`}
        </button>
        <span role="status" style={styles.muted}>
          {message}
        </span>
      </div>
      {[...refused].map(([why, labels]) => (
        <div key={why} style={styles.muted} data-testid="refused">
          {labels.join(", ")} unavailable: {why}
        </div>
      ))}
      <div style={styles.muted}>key {row.key}</div>
      {row.claim?.waiters && (
        <div style={styles.muted}>its request goes on for the replicas waiting on it: {row.claim.waiters.join(", ")}</div>
      )}
      {preview && (
        <pre style={styles.pre} data-testid="json-preview" tabIndex={0} aria-label={`Recorded JSON of ${row.label}`}>
          {preview.text}
          {preview.truncated && "\n… (truncated at 1 MiB)"}
        </pre>
      )}
    </div>
  );
}
