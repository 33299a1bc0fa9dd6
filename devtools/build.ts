import type { ClaimRecord, DocRecords } from "./core.ts";
import type { Presence } from "./presence.ts";
import type { SignsOfLife } from "./signs-of-life.ts";
import type { DevtoolsClaim, DevtoolsKeyRow, DevtoolsKind, DevtoolsReplica } from "./types.ts";

/** What the store's events told about a key that its records may not (e.g. a claim's kind). */
export type KeyHint = { label?: string; kind?: DevtoolsKind };

export type BuildInputs = {
  records: DocRecords;
  replicaId: string;
  presence: Presence | undefined;
  signs: SignsOfLife;
  hints: ReadonlyMap<string, KeyHint>;
  /** UTF-8 size of a result's data, cached per record object (Yjs keeps it stable). */
  bytesOf: (record: object, data: unknown) => number;
  now: number;
};

export type Built = {
  keys: DevtoolsKeyRow[];
  replicas: DevtoolsReplica[];
  /** When the next live-looking foreign claim would go silent beyond its lease (Infinity: none). */
  nextExpiry: number;
};

export function build(input: BuildInputs): Built {
  const { records, hints } = input;
  const claims = new Map(records.claims.entries());
  const results = new Map(records.results.entries());
  const programs = new Map(records.programs.entries());
  const errors = new Map(records.errors.entries());
  const asks = new Map(records.asks.entries());
  const all = new Set([...claims.keys(), ...results.keys(), ...programs.keys(), ...errors.keys(), ...asks.keys()]);
  let nextExpiry = Infinity;
  const keys: DevtoolsKeyRow[] = [];
  for (const key of all) {
    const result = results.get(key) ?? programs.get(key);
    const error = errors.get(key);
    const hint = hints.get(key);
    const claimRecord = claims.get(key);
    const label = claimRecord?.label ?? result?.label ?? hint?.label;
    const kind: DevtoolsKind = results.has(key) ? "fetch" : programs.has(key) ? "program" : (hint?.kind ?? kindOfLabel(label));
    const row: DevtoolsKeyRow = { key, label: label === undefined ? `key ${key.slice(0, 12)}…` : clip(label, 200), kind };
    if (claimRecord) {
      const recorded = Math.max(result?.rev ?? 0, error?.rev ?? 0);
      const { claim, expiresAt } = claimView(key, claimRecord, recorded, input);
      row.claim = claim;
      if (expiresAt > input.now) nextExpiry = Math.min(nextExpiry, expiresAt);
    }
    if (result) row.result = { rev: result.rev, bytes: input.bytesOf(result, result.data) };
    if (error) {
      const message = clip(error.message, 1000);
      row.error = error.status === undefined ? { rev: error.rev, message } : { rev: error.rev, message, status: error.status };
    }
    const asked = asks.get(key);
    if (asked !== undefined) row.lastAskedAt = asked;
    keys.push(row);
  }
  keys.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { keys, replicas: replicas(input, claims), nextExpiry };
}

/** Labels and messages are a peer's strings, validated as strings but not in length. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A foreign claim's kind is not recorded; its label says it ("PROGRAM https://…" vs "GET https://…"). */
function kindOfLabel(label: string | undefined): DevtoolsKind {
  return label === undefined ? "unknown" : label.startsWith("PROGRAM ") ? "program" : "fetch";
}

function claimView(key: string, c: ClaimRecord, recorded: number, input: BuildInputs): { claim: DevtoolsClaim; expiresAt: number } {
  const mine = c.replicaId === input.replicaId;
  const holderPresent = input.presence ? input.presence.has(c.replicaId) : undefined;
  // The inspected store never judges its own work by the clock (invariant 2); neither does its panel.
  const expiresAt = mine || c.abandoned ? Infinity : input.signs.expiresAt(key, c, input.now);
  const leaseExpired = input.now >= expiresAt;
  const claim: DevtoolsClaim = {
    replicaId: c.replicaId,
    mine,
    rev: c.rev,
    leaseMs: c.leaseMs,
    abandoned: c.abandoned === true,
    leaseExpired,
    stale: c.abandoned === true || (!mine && (holderPresent === false || leaseExpired)),
    finished: c.rev <= recorded,
  };
  if (c.browserId !== undefined) claim.browserId = c.browserId;
  if (holderPresent !== undefined) claim.holderPresent = holderPresent;
  return { claim, expiresAt: claim.stale ? Infinity : expiresAt };
}

function replicas(input: BuildInputs, claims: Map<string, ClaimRecord>): DevtoolsReplica[] {
  const byId = new Map<string, DevtoolsReplica>();
  const row = (replicaId: string): DevtoolsReplica => {
    let r = byId.get(replicaId);
    if (!r) byId.set(replicaId, (r = { replicaId, me: replicaId === input.replicaId, claims: 0 }));
    if (input.presence) r.present = input.presence.has(replicaId);
    return r;
  };
  row(input.replicaId);
  for (const claim of claims.values()) {
    const r = row(claim.replicaId);
    r.claims += 1;
    if (claim.browserId !== undefined) r.browserId ??= claim.browserId;
  }
  for (const [id, beat] of input.records.beats.entries()) row(id).heartbeat = beat.n;
  for (const [id, seen] of input.presence ?? []) {
    const r = row(id);
    if (seen.browserId !== undefined) r.browserId = seen.browserId;
  }
  // Me first, then by id: rows do not jump around as claims come and go.
  return [...byId.values()].sort((a, b) => (a.me !== b.me ? (a.me ? -1 : 1) : a.replicaId < b.replicaId ? -1 : a.replicaId > b.replicaId ? 1 : 0));
}
