import { HeaderRow } from "./HeaderRow.tsx";
import { describeEvent, formatTime, shortId } from "./format.ts";
import { styles } from "./styles.ts";
import type { DevtoolsEvent } from "./types.ts";

/** The inspected store's own events, newest first (the model keeps them oldest first). */
export function EventLog({ events }: { events: readonly DevtoolsEvent[] }) {
  if (events.length === 0) return <p style={styles.empty}>No events since the panel started.</p>;
  return (
    <table style={styles.table} aria-label="Events">
      <HeaderRow names={["Time", "Event", "Kind", "Key", "Details"]} />
      <tbody>
        {[...events].reverse().map(({ seq, at, event }) => {
          const key = "key" in event ? event.key : undefined;
          return (
            <tr key={seq} data-testid="event-row" data-type={event.type}>
              <td style={styles.td}>{formatTime(at)}</td>
              <th scope="row" style={{ ...styles.td, textAlign: "left" }}>
                {event.type}
              </th>
              <td style={styles.td}>{"kind" in event ? event.kind : "—"}</td>
              <td style={styles.td} title={key}>
                {key ? shortId(key) : "—"}
              </td>
              <td style={styles.td}>{describeEvent(event)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
