import type { InspectedClaim, InspectedReplica, Inspection } from "./core.ts";
import { clip, unnamedKey, WORKER } from "./format.ts";
import type { Presence } from "./presence.ts";
import type { Timeline } from "./timeline.ts";
import type { DevtoolsClaim, DevtoolsKeyRow, DevtoolsKeyStatus, DevtoolsKind, DevtoolsReplica } from "./types.ts";

/** What the store's events told about a key that its records may not (e.g. a claim's kind). */
export type KeyHint = { label?: string; kind?: DevtoolsKind };

export type BuildInputs = {
  /** The store's own view: its verdicts are the ones the panel shows (one staleness model). */
  inspection: Inspection;
  presence: Presence | undefined;
  hints: ReadonlyMap<string, KeyHint>;
  /** UTF-8 size of a result's data, cached per data object (Yjs keeps it stable). */
  bytesOf: (data: unknown) => number;
  /** When the panel saw a key's current outcome written and its claim first, and whether that claim stood at its start. */
  seen: Pick<Timeline, "recordedAt" | "claimedAt" | "claimStood">;
  /** When the panel saw a replica's presence change. */
  since: ReadonlyMap<string, number>;
  identityHash: string;
  /** In a SharedWorker tab, the keys this tab shows: the inspected replica is the worker, which asks for every tab. */
  shown?: ReadonlySet<string> | undefined;
};

/** The tables "evict record" empties. */
export const OUTCOMES = ["results", "programs", "errors"];

export type Built = {
  keys: DevtoolsKeyRow[];
  replicas: DevtoolsReplica[];
};

/**
 * Two calls of one mutation (their callIds) or two bodies POSTed to one URL are keys of one label:
 * each is named by its key's short hash beside it (never by its body), in every tab and the timeline.
 */
export function nameTwins(inspection: Inspection): Inspection {
  const count = new Map<unknown, number>();
  for (const { label } of inspection.keys) count.set(label, (count.get(label) ?? 0) + 1);
  return {
    ...inspection,
    keys: inspection.keys.map((k) => (k.label && count.get(k.label)! > 1 ? { ...k, label: `${k.label} · ${k.key.slice(0, 8)}` } : k)),
  };
}

export function build(input: BuildInputs): Built {
  const { inspection, hints } = input;
  const keys: DevtoolsKeyRow[] = [];
  const bad = new Set(inspection.malformed.flatMap((m) => (m.key !== undefined && OUTCOMES.includes(m.map) ? [m.key] : [])));
  for (const k of inspection.keys) {
    const hint = hints.get(k.key);
    const label = k.label ?? hint?.label;
    const kind: DevtoolsKind = k.kind !== "unknown" ? k.kind : (hint?.kind ?? "unknown");
    const row: DevtoolsKeyRow = {
      key: k.key,
      label: label === undefined ? unnamedKey(k.key) : clip(label, 200),
      kind,
      status: statusOf(
        k.claim,
        k.result?.rev ?? 0,
        k.error?.rev ?? 0,
        k.local?.attempt !== undefined || (k.local?.wantedRev ?? 0) > k.recorded,
      ),
      recorded: k.recorded,
      local: input.shown ? input.shown.has(k.key) : k.local !== undefined,
    };
    if (k.local?.attempt) row.attempt = { ...k.local.attempt };
    else if (inspection.lifecycle === "starting" && k.local?.waiters && !k.claim) row.waitsForSync = true;
    if (k.claim) {
      row.claim = claimView(k.claim, input.presence, inspection.at);
      const seenAt = input.seen.claimedAt(k.key, k.claim.nonce);
      if (seenAt !== undefined) row.claim.seenAt = seenAt;
      if (input.seen.claimStood(k.key, k.claim.nonce)) row.claim.seenAtStart = true;
    }
    if (k.result)
      row.result = written(
        { rev: k.result.rev, bytes: input.bytesOf(k.result.data) },
        k.result,
        input.seen.recordedAt(k.key, k.result.rev, "result"),
      );
    if (k.error) {
      const message = clip(k.error.message, 1000);
      const { rev, status } = k.error;
      row.error = written(
        status === undefined ? { rev, message } : { rev, message, status },
        k.error,
        input.seen.recordedAt(k.key, rev, "error"),
      );
    }
    if (k.lastAskedAt !== undefined) row.lastAskedAt = k.lastAskedAt;
    if (bad.has(k.key)) row.malformed = true;
    keys.push(row);
    bad.delete(k.key);
  }
  // A key whose only record is malformed is none the store reads, but it sits in the doc: its row is where "evict record" is.
  for (const key of bad)
    keys.push({
      key,
      label: hints.get(key)?.label ?? unnamedKey(key),
      kind: "unknown",
      status: "idle",
      recorded: 0,
      local: false,
      malformed: true,
    });
  // A row shows 200 characters of a label: rows alike up to there (twins named past the cut, or labels
  // that differ only past it) read and are announced as one, unless their key's hash follows the cut.
  const alike = new Map<string, number>();
  for (const { label } of keys) alike.set(label, (alike.get(label) ?? 0) + 1);
  for (const row of keys) if (alike.get(row.label)! > 1) row.label += ` · ${row.key.slice(0, 8)}`;
  keys.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { keys, replicas: replicas(input, keys) };
}

/**
 * A claim on work not yet recorded is pending (or stale: believed abandoned), as is this store's own
 * attempt before its claim is in the doc (waiting for the key's Web Lock); else the latest outcome.
 */
export function statusOf(claim: InspectedClaim | undefined, resultRev: number, errorRev: number, working = false): DevtoolsKeyStatus {
  if (claim && !claim.finished) return claim.stale ? "stale" : "pending";
  if (working) return "pending";
  if (errorRev > resultRev) return "error";
  return resultRev > 0 ? "success" : "idle";
}

type Written = { by?: string; invalidated?: true; at?: number };

/** An outcome's row, with its writer and its invalidation as recorded and when this panel saw it written, where known. */
function written<T extends object>(row: T & Written, record: Written, at: number | undefined): T & Written {
  if (record.by !== undefined) row.by = record.by;
  if (record.invalidated) row.invalidated = true;
  if (at !== undefined) row.at = at;
  return row;
}

function claimView(c: InspectedClaim, presence: Presence | undefined, at: number): DevtoolsClaim {
  const claim: DevtoolsClaim = {
    replicaId: c.replicaId,
    mine: c.mine,
    rev: c.rev,
    leaseMs: c.leaseMs,
    abandoned: c.abandoned,
    leaseExpired: c.reason === "lease-silence",
    stale: c.stale,
    finished: c.finished,
    holder: c.holder,
    silentMs: c.silentMs,
    staleAt: c.staleAt,
  };
  if (c.reason) claim.reason = c.reason;
  if (!c.mine) claim.silentSince = at - c.silentMs;
  if (c.browserId !== undefined) claim.browserId = c.browserId;
  if (c.waiters) claim.waiters = c.waiters;
  if (c.failed) claim.failed = c.failed;
  if (presence) claim.holderPresent = c.mine || (presence.has(c.replicaId) && c.reason !== "presence-left" && c.reason !== "lock-released");
  return claim;
}

function replicas(input: BuildInputs, keys: DevtoolsKeyRow[]): DevtoolsReplica[] {
  // A store given no awareness lists only replicas seen in the doc; the panel's own presence adds
  // the ones that hold nothing, as it says it does once it has an awareness.
  const listed = new Set(input.inspection.replicas.map((r) => r.replicaId));
  const extra = [...(input.presence?.keys() ?? [])]
    .filter((id) => !listed.has(id))
    .map((replicaId) => ({ replicaId, me: false, claims: 0 }));
  const all = extra.length
    ? [...input.inspection.replicas, ...extra].sort((a, b) => (a.me !== b.me ? (a.me ? -1 : 1) : a.replicaId < b.replicaId ? -1 : 1))
    : input.inspection.replicas;
  return all.map((r: InspectedReplica): DevtoolsReplica => {
    const browserIdOfMe = input.inspection.replicas.find((x) => x.me)?.browserId;
    const seenBrowser = input.presence?.get(r.replicaId)?.browserId ?? r.browserId;
    // Only a replica of this browser is watched by its Web Lock: one whose lock was released ran here,
    // its browser id gone with its claims and presence (a SharedWorker that died in a takeover).
    const where = r.me
      ? input.shown
        ? WORKER
        : "this tab"
      : (seenBrowser !== undefined && seenBrowser === browserIdOfMe) || r.departed === "lock-released"
        ? "same browser"
        : "other device";
    const row: DevtoolsReplica = { replicaId: r.replicaId, me: r.me, claims: r.claims, where };
    const since = input.since.get(r.replicaId);
    if (since !== undefined) row.since = since;
    if (r.me) row.identityHash = input.identityHash;
    const waits = keys.filter((k) => k.claim?.waiters?.includes(r.replicaId)).map((k) => k.key);
    if (waits.length) row.waits = waits;
    const seen = input.presence?.get(r.replicaId);
    // The store's own view of presence first (it acts on it); the panel's awareness otherwise.
    if (r.present !== undefined) row.present = r.present;
    else if (input.presence) row.present = r.me || input.presence.has(r.replicaId);
    if (r.departed) row.present = false;
    const browserId = seen?.browserId ?? r.browserId;
    if (browserId !== undefined) row.browserId = browserId;
    if (r.departed) row.departed = r.departed;
    if (r.heartbeat) row.heartbeat = r.heartbeat.n;
    if (r.heartbeat?.seenAt !== undefined) row.heartbeatAgeMs = Math.max(0, input.inspection.at - r.heartbeat.seenAt);
    return row;
  });
}
