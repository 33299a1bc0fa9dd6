import type { InspectedClaim, Inspection } from "./core.ts";
import type { Presence } from "./presence.ts";
import type { DevtoolsClaim, DevtoolsKeyRow, DevtoolsKind, DevtoolsReplica } from "./types.ts";

/** What the store's events told about a key that its records may not (e.g. a claim's kind). */
export type KeyHint = { label?: string; kind?: DevtoolsKind };

export type BuildInputs = {
  /** The store's own view: its verdicts are the ones the panel shows (one staleness model). */
  inspection: Inspection;
  presence: Presence | undefined;
  hints: ReadonlyMap<string, KeyHint>;
  /** UTF-8 size of a result's data, cached per data object (Yjs keeps it stable). */
  bytesOf: (data: unknown) => number;
};

export type Built = {
  keys: DevtoolsKeyRow[];
  replicas: DevtoolsReplica[];
  /** When the next live-looking foreign claim would go silent beyond its lease (Infinity: none). */
  nextExpiry: number;
};

export function build(input: BuildInputs): Built {
  const { inspection, hints } = input;
  let nextExpiry = Infinity;
  const keys: DevtoolsKeyRow[] = [];
  for (const k of inspection.keys) {
    const hint = hints.get(k.key);
    const label = k.label ?? hint?.label;
    const kind: DevtoolsKind = k.kind !== "unknown" ? k.kind : (hint?.kind ?? "unknown");
    const row: DevtoolsKeyRow = { key: k.key, label: label === undefined ? `key ${k.key.slice(0, 12)}…` : clip(label, 200), kind };
    if (k.claim) {
      row.claim = claimView(k.claim, input.presence);
      if (!k.claim.stale && k.claim.staleAt > inspection.at) nextExpiry = Math.min(nextExpiry, k.claim.staleAt);
    }
    if (k.result) row.result = { rev: k.result.rev, bytes: input.bytesOf(k.result.data) };
    if (k.error) {
      const message = clip(k.error.message, 1000);
      row.error = k.error.status === undefined ? { rev: k.error.rev, message } : { rev: k.error.rev, message, status: k.error.status };
    }
    if (k.lastAskedAt !== undefined) row.lastAskedAt = k.lastAskedAt;
    keys.push(row);
  }
  keys.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { keys, replicas: replicas(input), nextExpiry };
}

/** Labels and messages are a peer's strings, validated as strings but not in length. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function claimView(c: InspectedClaim, presence: Presence | undefined): DevtoolsClaim {
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
  };
  if (c.reason) claim.reason = c.reason;
  if (c.browserId !== undefined) claim.browserId = c.browserId;
  if (presence) claim.holderPresent = c.mine || (presence.has(c.replicaId) && c.reason !== "presence-left" && c.reason !== "lock-released");
  return claim;
}

function replicas(input: BuildInputs): DevtoolsReplica[] {
  return input.inspection.replicas.map((r): DevtoolsReplica => {
    const row: DevtoolsReplica = { replicaId: r.replicaId, me: r.me, claims: r.claims };
    const seen = input.presence?.get(r.replicaId);
    if (input.presence) row.present = r.me || (input.presence.has(r.replicaId) && r.departed === undefined);
    const browserId = seen?.browserId ?? r.browserId;
    if (browserId !== undefined) row.browserId = browserId;
    if (r.departed) row.departed = r.departed;
    if (r.heartbeat) row.heartbeat = r.heartbeat.n;
    if (r.heartbeat?.seenAt !== undefined) row.heartbeatAgeMs = Math.max(0, input.inspection.at - r.heartbeat.seenAt);
    return row;
  });
}
