import type { StoreEvent } from "./core.ts";

/** Random replica ids are long; the panel shows a prefix and keeps the whole id in a title. */
export function shortId(id: string, length = 12): string {
  return id.length > length ? `${id.slice(0, length - 1)}…` : id;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function formatTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** One line per event; the key column carries the key itself. */
export function describeEvent(event: StoreEvent): string {
  switch (event.type) {
    case "claimed":
      return `${event.label} rev ${event.rev}${event.takeoverOf ? ` (took over from ${shortId(event.takeoverOf)})` : ""}`;
    case "yielded":
      return `rev ${event.rev} to ${shortId(event.to)}`;
    case "dispatched":
      return `${event.label} rev ${event.rev}`;
    case "settled":
      return `rev ${event.rev}: ${event.outcome}${event.written ? "" : " (not written: already recorded)"}`;
    case "aborted":
      return `rev ${event.rev}: ${event.reason}`;
    case "released":
      return `rev ${event.rev}`;
    case "swept":
      return `${event.keys.length} key${event.keys.length === 1 ? "" : "s"}`;
  }
}

/** A peer's raw content, shown safely: never thrown, never huge. */
export function preview(value: unknown, max = 160): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
