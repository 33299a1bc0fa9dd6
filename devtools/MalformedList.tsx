import { evictRecord } from "./actions.ts";
import { OUTCOMES } from "./build.ts";
import type { MalformedRecord, SharedFetchStore } from "./core.ts";
import { preview, shortId } from "./format.ts";
import { styles } from "./styles.ts";

/** An outcome record is removable (as the key's "evict record" does): no replica reads it, it stays until removed. */
const evictable = (record: MalformedRecord) => record.key !== undefined && OUTCOMES.includes(record.map);

/** Records peers wrote that failed validation: ignored by the store (invariant 14), shown here. */
export function MalformedList({
  records,
  store,
  frozen,
}: {
  records: readonly MalformedRecord[];
  store: SharedFetchStore;
  frozen?: string | undefined;
}) {
  if (records.length === 0) return <p style={styles.empty}>Every record in the doc is well-formed.</p>;
  return (
    <>
      {/* The disabled evict's title shows only to a mouse: the reason is written out for everyone (where one is shown). */}
      {frozen && records.some(evictable) && <p style={styles.muted}>evict unavailable: {frozen}</p>}
      <ul style={styles.list} aria-label="Malformed records">
        {records.map((record, i) => (
          // Malformed entries have no identity of their own; their position is all there is.
          <li key={i} data-testid="malformed-row" data-map={record.map} style={{ marginBottom: "0.3rem" }}>
            <strong>{record.map}</strong>
            {record.key !== undefined && <span title={record.key.slice(0, 200)}> {shortId(record.key)}</span>}: {record.reason}
            {evictable(record) && (
              <button
                type="button"
                style={styles.button}
                disabled={!!frozen}
                title={frozen}
                onClick={() => evictRecord(store, record.key!)}
              >
                evict
              </button>
            )}
            <div style={styles.muted}>
              <code>{preview(record.value)}</code>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
