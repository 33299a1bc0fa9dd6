import type { SettleWhy, StoreEvent } from "./core.ts";

/**
 * At most `max` characters, an ellipsis marking a cut: random replica ids are long (the panel shows
 * a prefix and keeps the whole id in a title), and labels and messages are a peer's strings,
 * validated as strings but not in length.
 */
export function clip(text: string, max = 12): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
export { clip as shortId };

/** The inspected replica in a SharedWorker tab (connectBrowser): every tab of the browser shows it, so it is never "me (this tab)". */
export const WORKER = "this browser's SharedWorker";

/** A key with no label: its hash's first 12 digits. */
export const unnamedKey = (key: string): string => `key ${key.slice(0, 12)}…`;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "1.5 s": a wait or an age a reader compares across the panel (clock times keep their ms: formatTime). */
export const inSeconds = (ms: number): string => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

export function formatTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** One line per event; the key column carries the key itself. */
export function describeEvent(event: StoreEvent): string {
  switch (event.type) {
    case "claimed":
      return `${event.label} rev ${event.rev}${event.takeoverOf ? ` (took over from ${clip(event.takeoverOf)})` : ""} · ${describeSettle(event.settleMs, event.settleWhy)}`;
    case "ordered":
      return `rev ${event.rev}: ${ORDER[event.order]}`;
    case "yielded":
      return `rev ${event.rev} to ${clip(event.to)}`;
    case "joined":
      return `rev ${event.rev} of ${clip(event.to)}: sent nothing`;
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

const ORDER = {
  first: "first in the sync server's order",
  behind: "behind another claim in the sync server's order",
  unknown: "the sync server's order unknown (its fence gave up): it waits its whole window",
};

const SETTLE_WHY: Record<SettleWhy, string> = {
  "nothing-syncs": "nothing syncs this doc",
  "tab-locks": "the key's Web Lock decides between this browser's tabs",
  "settle-ms": "the settleMs option",
  default: "the default, no round trip measured yet",
  "initial-sync": "sized from the initial sync",
  "measured-trip": "sized from measured round trips",
  disconnected: "disconnected from every sync server",
  alone: "no replica of another browser present",
};

const SIZED: readonly SettleWhy[] = ["default", "initial-sync", "measured-trip"];

/** What a store whose Web Locks were refused does instead (InspectedSettle.refused). */
export const LOCKS_REFUSED = "Web Locks refused — claims wait the settle window; a crash is found by the lease";

/**
 * The settle window a claim waits before its request leaves, and why (SettleWhy); `tripMs`: the
 * round trip it was sized from; `refused`: Web Locks were refused (no key lock decides between tabs), whatever sized the window.
 */
export function describeSettle(ms: number, why: SettleWhy, tripMs?: number, refused?: boolean): string {
  // A sized window is 0 only behind a fence, once this replica was in sync for longer than it.
  if (ms <= 0 && SIZED.includes(why)) return "no window left: in sync for longer than it, the sync server's order decides";
  const trip = tripMs === undefined ? "" : ` (${Math.round(tripMs)} ms)`;
  return `${ms > 0 ? `window ${Math.round(ms)} ms` : "no window"}: ${SETTLE_WHY[why] ?? why}${trip}${refused ? `; ${LOCKS_REFUSED}` : ""}`;
}

/**
 * A peer's raw content, shown safely: never thrown, never huge. It stops reading once `max`
 * characters are out, so a peer's 20 MB (or 100 000-level) garbage costs no more than a short one.
 */
export function preview(value: unknown, max = 160): string {
  const out = { text: "" };
  const full = !write(value, 0, out, max);
  return full || out.text.length > max ? `${out.text.slice(0, max - 1)}…` : out.text;
}

/** Appends JSON-like text; returns false once `max` characters are written. */
function write(value: unknown, depth: number, out: { text: string }, max: number): boolean {
  const put = (s: string) => (out.text += s).length <= max;
  if (value === null || typeof value === "number" || typeof value === "boolean") return put(String(value));
  if (typeof value === "string") return put(JSON.stringify(value.length > max ? value.slice(0, max) : value));
  if (typeof value !== "object") return put(typeof value === "bigint" ? `${value}n` : `<${typeof value}>`);
  if (depth >= 8) return put("…");
  // A Y type (a peer may put one where a record belongs): its fields are Yjs internals.
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return put(`<${value.constructor?.name ?? "object"}>`);
  let entries: [string | undefined, unknown][];
  try {
    entries = Array.isArray(value)
      ? value.slice(0, max).map((v) => [undefined, v])
      : Object.keys(value)
          .slice(0, max)
          .map((k) => [k, (value as Record<string, unknown>)[k]]);
  } catch {
    return put(Object.prototype.toString.call(value));
  }
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (!put(open)) return false;
  for (const [i, [key, item]] of entries.entries()) {
    if (i > 0 && !put(",")) return false;
    if (key !== undefined && !put(`${JSON.stringify(key)}:`)) return false;
    if (!write(item, depth + 1, out, max)) return false;
  }
  return put(close);
}
