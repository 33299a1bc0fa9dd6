import { formatBytes, inSeconds, LOCKS_REFUSED, shortId, unnamedKey } from "./format.ts";
import type { StaleReason } from "./core.ts";

/**
 * The cross-replica timeline: what happened to each key, derived only from the doc transitions
 * this panel observed — no extra record is ever written to the doc, so every panel that watched
 * the same doc tells the same transitions. Why a claim went stale or was taken over is the
 * inspected store's own verdict, never the panel's: a store that had no verdict says so ("replaced"),
 * so panels on stores that saw different events may differ there. React-free: Storybook scenarios and
 * tests narrate with it too. Times are this panel's clock (Date.now() when it observed the change).
 */
export type TimelineEntry = { seq: number; at: number; key?: string | undefined; label?: string | undefined } & (
  | { type: "claimed"; replicaId: string; rev: number; existing?: true | undefined }
  | { type: "stale"; replicaId: string; rev: number; reason: StaleReason; silentMs: number }
  | { type: "takeover"; from: string; to: string; rev: number; reason: StaleReason; afterMs: number }
  /** Another replica's claim replaced one the store had not judged stale: the store cannot say why. */
  | { type: "replaced"; from: string; to: string; rev: number }
  | { type: "result"; by?: string | undefined; rev: number; bytes: number }
  | { type: "error"; by?: string | undefined; rev: number; message: string; status?: number | undefined; besideResult?: number | undefined }
  /** `aborted`: why the inspected store aborted its own request before letting the claim go (its event). */
  | { type: "released"; replicaId: string; rev: number; aborted?: string | undefined }
  /** The inspected store aborted its own request at `rev` for a refetch's newer one at `to` (TanStack's cancelRefetch): its claim passed to it. */
  | { type: "refetched"; replicaId: string; rev: number; to: number }
  /** An ask of the inspected store (`replicaId`) waited on `to`'s live claim instead of claiming: it sent nothing (its `joined` event). */
  | { type: "joined"; replicaId: string; to: string; rev: number }
  /** A claim of the inspected store (`replicaId`) stepped back for `to`'s, the one the doc kept: it sent nothing (its `yielded` event). */
  | { type: "yielded"; replicaId: string; to: string; rev: number }
  /** Web Locks refused the inspected store (InspectedSettle.refused): its claims wait the settle window, its browser's crashes are found by the lease. */
  | { type: "refused"; replicaId: string }
  /** A claim judged stale was heard from again (a partition healed, a beat arrived): live again. */
  | { type: "revived"; replicaId: string; rev: number }
  /** The recorded outcome was re-dated at the epoch: every replica's next demand fetches again. */
  | { type: "invalidated"; rev: number }
  | { type: "swept" }
  | { type: "departed"; replicaId: string; reason: "lock-released" | "presence-left" }
  /**
   * Counted present, now no longer, with no goodbye and no lock released: its presence timed out (or
   * this side's connection dropped); `by`: a new store on its connection took its presence over;
   * `others`: the rest of the replicas dropped at once (a connection drop drops every remote one): one entry for them all.
   */
  | { type: "unheard"; replicaId: string; others?: readonly string[] | undefined; by?: string | undefined }
  | { type: "malformed"; table: string; reason: string }
  /** The panel was given a new store (a logout and a login): what it told of the old one, `from`, is not carried over. */
  | { type: "inspecting"; replicaId: string; from: string; destroyed: boolean }
);

export type TimelineEntryType = TimelineEntry["type"];
export type TimelineFilter = { key?: string | undefined; replicaId?: string | undefined; types?: readonly TimelineEntryType[] | undefined };

type Named = { [F in "replicaId" | "from" | "to" | "by"]?: unknown } & { others?: readonly string[] };

/** Every replica an entry names (for the filter by replica): the string fields of these names (a refetch's `to` is its revision). */
export function replicasOf(entry: TimelineEntry): string[] {
  const { replicaId, others = [], from, to, by } = entry as Named;
  return [replicaId, ...others, from, to, by].filter((id): id is string => typeof id === "string");
}

export function matches(entry: TimelineEntry, filter: TimelineFilter): boolean {
  if (filter.key !== undefined && entry.key !== filter.key) return false;
  if (filter.replicaId !== undefined && !replicasOf(entry).includes(filter.replicaId)) return false;
  return !filter.types || filter.types.includes(entry.type);
}

const REASONS: Record<StaleReason, string> = {
  "lock-released": "lock released",
  "presence-left": "presence left",
  "lease-silence": "lease silence",
  abandoned: "abandoned by its page",
  disowned: "disowned (a claim under this replica's id it never made)",
};

/** Plain words for the store's reasons to abort its own request (the rest read as they are: "superseded"). */
const ABORTS: Record<string, string> = {
  "no-waiters": "nobody waits on it",
  // pagehide or freeze (page-lifecycle.ts), not visibilitychange: a tab merely hidden keeps its requests.
  hidden: "its page was left or frozen",
  destroyed: "its store was closed",
};

/** Plain words for a verdict reason ("lock released", "lease silence", …). */
export function describeReason(reason: StaleReason): string {
  return REASONS[reason];
}

/** One sentence per entry, e.g. "B took over GET /api/report from A after 0.8 s: lease silence". */
export function describeEntry(entry: TimelineEntry, name: (replicaId: string) => string = shortId): string {
  const what = entry.label ?? (entry.key !== undefined ? unnamedKey(entry.key) : "the doc");
  switch (entry.type) {
    case "claimed":
      return entry.existing
        ? `${name(entry.replicaId)} held ${what} (rev ${entry.rev}) when this panel started`
        : `${name(entry.replicaId)} claimed ${what} (rev ${entry.rev})`;
    case "stale":
      return entry.reason === "lease-silence"
        ? `${name(entry.replicaId)}'s heartbeat lapsed on ${what}: silent for ${inSeconds(entry.silentMs)}`
        : `${name(entry.replicaId)}'s claim on ${what} went stale: ${describeReason(entry.reason)}`;
    case "takeover":
      // The claimant's silence is what the takeover waited for only when the lease ran out: after a
      // released lock or a goodbye it came at once, and "after 2523 ms: lock released" read as a wait.
      // In seconds, as the Keys and Replicas tabs give silences and ages ("silent 1.5 s").
      return `${name(entry.to)} took over ${what} from ${name(entry.from)}${entry.reason === "lease-silence" ? ` after ${inSeconds(entry.afterMs)}` : ""}: ${describeReason(entry.reason)}`;
    case "replaced":
      return `${name(entry.to)}'s claim replaced ${name(entry.from)}'s on ${what} (rev ${entry.rev}) while this store still judged it live: the reason is not known here (both claimed at once, or ${name(entry.to)} judged it stale first)`;
    case "result":
      return `${entry.by !== undefined ? name(entry.by) : "a replica"} wrote the result of ${what} (rev ${entry.rev}, ${formatBytes(entry.bytes)})`;
    case "error":
      return `${entry.by !== undefined ? name(entry.by) : "a replica"} recorded an error for ${what} (rev ${entry.rev}${entry.status !== undefined && !entry.message.slice(0, 200).includes(`HTTP ${entry.status}`) ? `, HTTP ${entry.status}` : ""}): ${entry.message.slice(0, 200)}${entry.besideResult !== undefined ? ` — the result of rev ${entry.besideResult} is kept beside it` : ""}`;
    case "joined":
      return `${name(entry.replicaId)} joined ${name(entry.to)}'s request for ${what} (rev ${entry.rev}): sent nothing`;
    case "yielded":
      return `${name(entry.replicaId)} yielded ${what} (rev ${entry.rev}) to ${name(entry.to)}'s claim: sent nothing`;
    case "refused":
      return `${name(entry.replicaId)}: ${LOCKS_REFUSED}`;
    case "revived":
      return `${name(entry.replicaId)}'s claim on ${what} (rev ${entry.rev}) is live again: heard from after it went stale`;
    case "released":
      return `${name(entry.replicaId)} released ${what} (rev ${entry.rev}) with nothing recorded${entry.aborted ? `: aborted, ${ABORTS[entry.aborted] ?? entry.aborted}` : ""}`;
    case "refetched":
      return `${name(entry.replicaId)} aborted its request for ${what} (rev ${entry.rev}): a refetch sent a newer one (rev ${entry.to})`;
    case "invalidated":
      return `${what} was marked stale for every replica (rev ${entry.rev}): the next demand fetches again`;
    case "swept":
      return `${what} was swept from the doc`;
    case "departed":
      return entry.reason === "lock-released"
        ? `${name(entry.replicaId)} is gone: its Web Lock was released (page closed or crashed)`
        : `${name(entry.replicaId)} is gone: its presence left`;
    case "unheard":
      if (entry.by !== undefined)
        return `${name(entry.replicaId)}: its presence was taken over by ${name(entry.by)}, a new store on its connection (it stopped, or lives on unheard); its claims keep their lease`;
      return `${entry.others ? `${entry.others.length + 1} replicas (${[entry.replicaId, ...entry.others].map(name).join(", ")})` : name(entry.replicaId)}: not heard from, counted gone (its presence timed out after 30 s of silence, or this side's connection dropped); its claims keep their lease`;
    case "inspecting":
      return `this panel now inspects a new store (${name(entry.replicaId)}); the one before, ${name(entry.from)}${entry.destroyed ? ", was destroyed" : ""}`;
    case "malformed":
      return `a malformed ${entry.table} record${entry.key !== undefined ? ` for ${entry.key.slice(0, 24)}` : ""} was ignored: ${entry.reason}`;
  }
}
