import type { DocRecords } from "./doc-records.ts";
import { invalidated, outran } from "./freshness.ts";
import type { ClaimEngine } from "./engine.ts";
import { wantedRev } from "./key-reader.ts";
import { doneRev } from "./snapshot.ts";
import type { ClaimRecord, ErrorRecord, ResultRecord } from "./records.ts";
import type { Settle } from "./settle-window.ts";
import type { Holder, InspectedClaim, InspectedKey, InspectedReplica, InspectedSettle, Inspection } from "./inspection.ts";

export type { Holder, InspectedClaim, InspectedKey, InspectedReplica, InspectedSettle, Inspection } from "./inspection.ts";

export type InspectorDeps = {
  records: DocRecords;
  engine: ClaimEngine;
  browserId: string | undefined;
  /** Replicas present in awareness, or undefined when the store was given none. */
  present: () => ReadonlySet<string> | undefined;
  settle: () => Settle;
  /** The replicas (`me`: this one too) whose presence says they wait on a claim of `key` at `rev`. */
  waiters?: ((key: string, rev: number, me?: boolean) => string[]) | undefined;
  /** This store's Web Locks, when it has them: their `refused`. */
  locks?: { refused: boolean } | undefined;
};

export function inspect(deps: InspectorDeps, now = Date.now()): Inspection {
  const { records, engine } = deps;
  const me = engine.replicaId;
  const claims = new Map(records.claims.entries());
  const all = new Set([
    ...claims.keys(),
    ...records.results.keys(),
    ...records.programs.keys(),
    ...records.errors.keys(),
    ...records.asks.keys(),
  ]);
  const states = new Map([...engine.states()].map((st) => [st.key, st]));
  // A key this replica asked for and works on before anything of it is in the doc (waiting for its
  // lock, say) is shown too: pending here, where it would otherwise look unknown.
  for (const st of states.values()) if (st.waiters.size > 0 || st.attempt !== undefined) all.add(st.key);
  const keys: InspectedKey[] = [];
  for (const key of all) {
    const fetched = records.results.get(key);
    const program = records.programs.get(key);
    const result = fetched ?? program;
    const error = records.errors.get(key);
    const claim = claims.get(key);
    const recorded = Math.max(result?.rev ?? 0, error?.rev ?? 0);
    // An error record names its key too: a first attempt that failed leaves no claim or result.
    const kind = fetched ? "fetch" : program ? "program" : (claim?.kind ?? error?.kind ?? states.get(key)?.kind ?? "unknown");
    const row: InspectedKey = { key, kind, recorded };
    const label = claim?.label ?? result?.label ?? error?.label ?? states.get(key)?.job?.label;
    if (label !== undefined) row.label = label;
    // Its latest outcome dated at the epoch: invalidated (devtools/invalidate.ts), older than any
    // freshness demand — as the store judges it. The mark goes on that latest outcome.
    const stale = invalidated(result, error);
    const errorLatest = error !== undefined && error.rev > (result?.rev ?? 0);
    if (result) {
      row.result = result.by === undefined ? { rev: result.rev, data: result.data } : { rev: result.rev, data: result.data, by: result.by };
      if (stale && !errorLatest) row.result.invalidated = true;
    }
    if (error) {
      row.error =
        error.status === undefined
          ? { rev: error.rev, message: error.message }
          : { rev: error.rev, message: error.message, status: error.status };
      if (error.by !== undefined) row.error.by = error.by;
      if (stale && errorLatest) row.error.invalidated = true;
    }
    if (claim) row.claim = inspectClaim(deps, key, claim, recorded, now, result, error);
    const st = states.get(key);
    if (st) {
      row.local = { waiters: st.waiters.size, listeners: st.listeners.size };
      if (st.attempt?.phase) row.local.attempt = { rev: st.attempt.rev, phase: st.attempt.phase };
      // What the store's own snapshot counts as pending (invariant 8): a caller waits for unrecorded work.
      const wanted = wantedRev(st);
      if (wanted !== undefined) row.local.wantedRev = wanted;
    }
    // The replica that fetched a key writes no ask record: its result's `at` is that ask.
    const asked = [records.asks.get(key), result?.at, error?.at].filter((at) => at !== undefined);
    if (asked.length) row.lastAskedAt = Math.max(...asked);
    keys.push(row);
  }
  keys.sort((a, b) => ((a.label ?? "") < (b.label ?? "") ? -1 : (a.label ?? "") > (b.label ?? "") ? 1 : a.key < b.key ? -1 : 1));
  return {
    replicaId: me,
    at: now,
    keys,
    replicas: inspectReplicas(deps, claims, now),
    malformed: records.malformed(),
    settle: inspectSettle(deps.settle(), deps.locks),
    lifecycle: engine.stage,
  };
}

/** When the next live foreign claim of `i` goes stale by silence, with no change to tell (Infinity: none). */
export function nextExpiry(i: Inspection): number {
  let next = Infinity;
  for (const k of i.keys)
    if (k.claim && !k.claim.stale && !k.claim.finished && k.claim.staleAt > i.at) next = Math.min(next, k.claim.staleAt);
  return next;
}

/**
 * When to inspect again with no change to tell (Infinity: never): the next foreign lease running
 * out (nextExpiry), or a timed settle window that may end by time alone (in sync, or cut off, for
 * longer than it). Once per change of the window, so one that stays costs one look.
 */
export function lookAgain(): (i: Inspection) => number {
  let last: string | undefined = "";
  let lapse = Infinity;
  return (i) => {
    const w = i.settle;
    const seen = JSON.stringify(w);
    if (seen !== last) lapse = w && !w.eager && w.ms > 0 && w.why !== "settle-ms" ? i.at + w.ms : Infinity;
    else if (lapse <= i.at) lapse = Infinity;
    last = seen;
    return Math.min(nextExpiry(i), lapse);
  };
}

function inspectSettle({ fence, ...settle }: Settle, locks: InspectorDeps["locks"]): InspectedSettle {
  const out: InspectedSettle = settle;
  if (fence) out.fenced = true;
  if (locks?.refused) out.refused = true;
  return out;
}

function inspectClaim(
  deps: InspectorDeps,
  key: string,
  c: ClaimRecord,
  recorded: number,
  now: number,
  result: ResultRecord | undefined,
  error: ErrorRecord | undefined,
): InspectedClaim {
  const mine = deps.engine.owns(key, c);
  const holder: Holder = mine
    ? "this replica"
    : c.browserId !== undefined && c.browserId === deps.browserId
      ? "same browser"
      : "other replica";
  const v = mine ? undefined : deps.engine.verdict(key, c, now);
  const stale = !!v?.stale;
  // As the snapshot reads it (deriveSnapshot): a request that outran older outcomes works above
  // them, and a live one at or below a newer error still works; only then is it a leftover.
  const over = outran(result, error, { ...c, sentAt: deps.engine.opts.at(c) }, c);
  const rev = Math.max(c.rev, over ?? 0);
  const done = doneRev(result, over);
  const out: InspectedClaim = {
    replicaId: c.replicaId,
    nonce: c.nonce,
    rev: c.rev,
    leaseMs: c.leaseMs,
    abandoned: c.abandoned === true,
    holder,
    mine,
    finished: rev <= done || (rev <= recorded && (mine || stale)),
    stale,
    staleAt: v ? v.staleAt : Infinity,
    silentMs: v ? Math.max(0, now - v.lastSignAt) : 0,
    exact: v ? v.exact : true,
  };
  if (v?.reason) out.reason = v.reason;
  if (c.kind) out.kind = c.kind;
  const waiters = deps.waiters?.(key, c.rev, true).filter((id) => id !== c.replicaId);
  if (waiters?.length) out.waiters = waiters;
  if (c.browserId !== undefined) out.browserId = c.browserId;
  if (c.failed) out.failed = c.failed;
  return out;
}

function inspectReplicas(deps: InspectorDeps, claims: Map<string, ClaimRecord>, now: number): InspectedReplica[] {
  const { engine, records } = deps;
  const present = deps.present();
  const { gone, released } = engine.liveness.departed();
  const byId = new Map<string, InspectedReplica>();
  const row = (replicaId: string): InspectedReplica => {
    let r = byId.get(replicaId);
    if (!r) {
      const me = replicaId === engine.replicaId;
      r = { replicaId, me, claims: 0 };
      if (present) r.present = me || present.has(replicaId);
      if (!me && released.has(replicaId)) r.departed = "lock-released";
      else if (!me && gone.has(replicaId)) r.departed = "presence-left";
      if (r.departed) r.present = false;
      byId.set(replicaId, r);
    }
    return r;
  };
  const self = row(engine.replicaId);
  if (deps.browserId) self.browserId = deps.browserId;
  for (const claim of claims.values()) {
    const r = row(claim.replicaId);
    r.claims += 1;
    if (claim.browserId !== undefined) r.browserId ??= claim.browserId;
  }
  for (const [id, beat] of records.beats.entries()) {
    const seenAt = engine.liveness.beatSeenAt(id, now);
    row(id).heartbeat = seenAt === undefined ? { n: beat.n } : { n: beat.n, seenAt };
  }
  for (const id of present ?? []) row(id);
  // Seen to die or leave: shown as departed while this replica remembers it.
  for (const id of [...released, ...gone]) row(id);
  // Me first, then by id: rows do not jump around as claims come and go.
  return [...byId.values()].sort((a, b) => (a.me !== b.me ? (a.me ? -1 : 1) : a.replicaId < b.replicaId ? -1 : 1));
}
