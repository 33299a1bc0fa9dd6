import type { InspectedClaim, InspectedKey, Inspection, MalformedRecord, StaleReason } from "./core.ts";
import { dataSizer } from "./data-size.ts";
import { matches, type TimelineEntry, type TimelineFilter } from "./timeline-entry.ts";

export type TimelineOptions = {
  /** Entries kept, newest first. Default 500. */
  max?: number | undefined;
  /** UTF-8 size of a result's data (the model caches it per data object). */
  sizeOf?: ((data: unknown) => number) | undefined;
};

export const DEFAULT_TIMELINE_MAX = 500;

type Prev = { inspection: Inspection; byKey: Map<string, InspectedKey>; departed: Map<string, string>; present: Set<string> };
type Draft = TimelineEntry extends infer E ? (E extends TimelineEntry ? Omit<E, "seq" | "at"> : never) : never;

/** Tells the entries (timeline-entry.ts) by comparing each inspection of the store with the one before. */
export class Timeline {
  private list: TimelineEntry[] = [];
  private prev: Prev | undefined;
  private seq = 0;
  private readonly max: number;
  private readonly sizeOf: (data: unknown) => number;
  // Per table: an error recorded beside a result must not make the result look older than the panel.
  private readonly writtenAt = {
    result: new Map<string, { rev: number; at: number }>(),
    error: new Map<string, { rev: number; at: number }>(),
  };
  private malformedSeen = new Set<unknown>();
  /** When this panel first saw each key's current claim, on its clock: the claim's own `at` is its writer's. */
  private readonly claimSeen = new Map<string, [nonce: string, at: number, stood?: true]>();
  /** The inspected store's own aborts by key ("aborted" events, noted by the model): the release that follows says why. */
  readonly aborts = new Map<string, [rev: number, reason: string]>();
  /** The inspected store's own joins by key ("joined" events, noted by the model): told after the claim they joined. */
  readonly joins = new Map<string, [rev: number, to: string]>();
  /**
   * The inspected store's own claim by key ("claimed" and "yielded" events, noted by the model):
   * whether this panel saw it stand (or told it), and whom it yielded to. Two claims made at once: the rival's
   * may overwrite ours before this panel looks, and ours would go untold.
   */
  readonly own = new Map<string, [rev: number, seen?: boolean, to?: string]>();

  constructor(opts: TimelineOptions = {}) {
    this.max = opts.max ?? DEFAULT_TIMELINE_MAX;
    if (!Number.isSafeInteger(this.max) || this.max < 1)
      throw new RangeError(`shared-fetch devtools: timeline max must be a positive integer, got ${String(opts.max)}`);
    this.sizeOf = opts.sizeOf ?? dataSizer();
  }

  /** Newest first. Keeps its identity until an entry is added. */
  entries(filter?: TimelineFilter): readonly TimelineEntry[] {
    return filter ? this.list.filter((e) => matches(e, filter)) : this.list;
  }

  /** When this panel saw the current result (or error) of `key` written, on its clock; undefined: before it started. */
  recordedAt(key: string, rev: number, table: "result" | "error" = "result"): number | undefined {
    const seen = this.writtenAt[table].get(key);
    return seen && seen.rev === rev ? seen.at : undefined;
  }

  /** When this panel first saw the claim `nonce` of `key`, on its clock (for one standing as it started: when it started). */
  claimedAt(key: string, nonce: string): number | undefined {
    const seen = this.claimSeen.get(key);
    return seen?.[0] === nonce ? seen[1] : undefined;
  }

  /** The claim stood when this panel started: its age from `claimedAt` is a lower bound. */
  claimStood(key: string, nonce: string): boolean {
    const seen = this.claimSeen.get(key);
    return seen?.[0] === nonce && !!seen[2];
  }

  /** The panel now inspects a new store's replica: says so once, however many panels show it. */
  follow(replicaId: string, from: string, destroyed: boolean): void {
    const last = this.list[0];
    if (last?.type === "inspecting" && last.from === from) return;
    this.list = [{ type: "inspecting" as const, replicaId, from, destroyed, seq: ++this.seq, at: Date.now() }, ...this.list].slice(
      0,
      this.max,
    );
  }

  /**
   * Compares an inspection with the previous one and appends what changed. The first one is the
   * baseline: only the claims standing then are told ("held when this panel started").
   */
  observe(next: Inspection, successors?: ReadonlyMap<string, string>): boolean {
    const before = this.list;
    const byKey = new Map(next.keys.map((k) => [k.key, k]));
    const departed = new Map(next.replicas.filter((r) => r.departed).map((r) => [r.replicaId, r.departed!]));
    const present = new Set(next.replicas.filter((r) => r.present && !r.me).map((r) => r.replicaId));
    const drafts: Draft[] = [];
    const prev = this.prev;
    if (next.settle?.refused && !prev?.inspection.settle?.refused) drafts.push({ type: "refused", replicaId: next.replicaId });
    if (!prev) {
      for (const k of next.keys) {
        const c = k.claim;
        if (!c) continue;
        this.claimSeen.set(k.key, [c.nonce, next.at, true]);
        if (c.finished) continue;
        drafts.push({ ...tag(k), type: "claimed", replicaId: c.replicaId, rev: c.rev, existing: true });
        if (c.stale && c.reason)
          drafts.push({ ...tag(k), type: "stale", replicaId: c.replicaId, rev: c.rev, reason: c.reason, silentMs: c.silentMs });
      }
    } else {
      for (const [id, reason] of departed)
        if (!prev.departed.has(id)) drafts.push({ type: "departed", replicaId: id, reason: reason as "lock-released" | "presence-left" });
      // Dropped from presence with no goodbye and no lock released: y-protocols' timeout (its row may
      // be gone with it, when it held nothing); the store keeps its claims' lease.
      const unheard = [...prev.present].filter((id) => !present.has(id) && !departed.has(id));
      for (const id of unheard) {
        const by = successors?.get(id);
        if (by !== undefined) drafts.push({ type: "unheard", replicaId: id, by });
      }
      const [id, ...others] = unheard.filter((id) => !successors?.has(id));
      if (id !== undefined) drafts.push(others.length ? { type: "unheard", replicaId: id, others } : { type: "unheard", replicaId: id });
      for (const k of next.keys) this.diffKey(prev, prev.byKey.get(k.key), k, next, departed, drafts);
      for (const [key, k] of prev.byKey) if (!byKey.has(key)) drafts.push(this.vanished(k));
    }
    this.diffMalformed(next.malformed, drafts);
    // A panel left open for days sees keys come and go: what it noted of one goes with it. An abort
    // of a key no inspection shows (claimed and let go between two, or never claimed) tells no release.
    const notes = [this.writtenAt.result, this.writtenAt.error, this.claimSeen, this.aborts, this.joins, this.own];
    for (const map of notes) for (const key of map.keys()) if (!byKey.has(key)) map.delete(key);
    this.prev = { inspection: next, byKey, departed, present };
    if (drafts.length === 0) return false;
    const fresh = drafts.map((d) => ({ ...d, seq: ++this.seq, at: next.at }) as TimelineEntry).reverse();
    this.list = [...fresh, ...before].slice(0, this.max);
    return true;
  }

  private diffKey(
    prev: Prev,
    was: InspectedKey | undefined,
    now: InspectedKey,
    next: Inspection,
    departed: Map<string, string>,
    out: Draft[],
  ): void {
    const t = tag(now);
    const pc = was?.claim;
    const nc = now.claim;
    // Our own request, aborted for a refetch's newer one (its event says so), whose claim passed to
    // a higher revision: told whether or not this panel saw that claim (it may come and go between two).
    const why = this.aborts.get(now.key);
    const to = Math.max(nc && nc.nonce !== pc?.nonce ? nc.rev : 0, now.recorded);
    if (pc?.mine && !pc.finished && why?.[0] === pc.rev && why[1] === "refetched" && to > pc.rev) {
      this.aborts.delete(now.key);
      out.push({ ...t, type: "refetched", replicaId: pc.replicaId, rev: pc.rev, to });
    }
    const own = this.own.get(now.key);
    if (own && nc?.mine && nc.rev === own[0]) own[1] = true;
    // Ours, overwritten before this panel looked (by a rival's claim now, or as its yield says): told first.
    if (own && !own[1] && (own[2] || (nc && nc.nonce !== pc?.nonce))) {
      own[1] = true;
      out.push({ ...t, type: "claimed", replicaId: next.replicaId, rev: own[0] });
    }
    if (nc && (!pc || pc.nonce !== nc.nonce)) {
      this.claimSeen.set(now.key, [nc.nonce, next.at]);
      const takenFrom = pc && !pc.finished && pc.replicaId !== nc.replicaId && pc.rev === nc.rev ? pc : undefined;
      if (takenFrom) passed(t, takenFrom, nc.replicaId, nc.rev, prev.inspection, next, departed, out);
      else if (!nc.finished) out.push({ ...t, type: "claimed", replicaId: nc.replicaId, rev: nc.rev });
    }
    if (own?.[2]) {
      this.own.delete(now.key);
      out.push({ ...t, type: "yielded", replicaId: next.replicaId, to: own[2], rev: own[0] });
    }
    const joined = this.joins.get(now.key);
    if (joined) {
      this.joins.delete(now.key);
      out.push({ ...t, type: "joined", replicaId: next.replicaId, to: joined[1], rev: joined[0] });
    }
    if (nc && nc.stale && nc.reason && !nc.finished && (!pc || pc.nonce !== nc.nonce ? true : !pc.stale)) {
      out.push({ ...t, type: "stale", replicaId: nc.replicaId, rev: nc.rev, reason: nc.reason, silentMs: nc.silentMs });
    } else if (nc && pc && pc.nonce === nc.nonce && pc.stale && !nc.stale && !nc.finished) {
      out.push({ ...t, type: "revived", replicaId: nc.replicaId, rev: nc.rev });
    }
    const r = now.result;
    if (r && (!was?.result || was.result.rev !== r.rev || was.result.by !== r.by)) {
      // Another replica wrote the revision this panel last saw claimed, and its own claim came
      // and went between two inspections (a new SharedWorker is watched only after its hello):
      // it took that claim over, for the store's reason if it gave one.
      if (pc && !pc.finished && !nc && r.rev === pc.rev && r.by !== undefined && r.by !== pc.replicaId)
        passed(t, pc, r.by, r.rev, prev.inspection, next, departed, out);
      this.writtenAt.result.set(now.key, { rev: r.rev, at: next.at });
      out.push({ ...t, type: "result", rev: r.rev, bytes: this.sizeOf(r.data), ...(r.by !== undefined ? { by: r.by } : {}) });
    } else if (r?.invalidated && !was?.result?.invalidated) out.push({ ...t, type: "invalidated", rev: r.rev });
    const e = now.error;
    if (e && (!was?.error || was.error.rev !== e.rev || was.error.message !== e.message)) {
      this.writtenAt.error.set(now.key, { rev: e.rev, at: next.at });
      const entry: Draft = { ...t, type: "error", rev: e.rev, message: e.message };
      if (e.status !== undefined) entry.status = e.status;
      if (e.by !== undefined) entry.by = e.by;
      if (r) entry.besideResult = r.rev;
      out.push(entry);
    } else if (e?.invalidated && !was?.error?.invalidated) out.push({ ...t, type: "invalidated", rev: e.rev });
    if (pc && !pc.finished && !nc && now.recorded < pc.rev) out.push(this.released(t, pc));
    if (was?.result && !r && now.claim === undefined && !now.error) out.push({ ...t, type: "swept" });
  }

  private released(t: { key: string }, c: InspectedClaim): Draft {
    const why = this.aborts.get(t.key);
    // Told once: the note goes with it.
    if (c.mine && why?.[0] === c.rev) this.aborts.delete(t.key);
    return { ...t, type: "released", replicaId: c.replicaId, rev: c.rev, aborted: c.mine && why?.[0] === c.rev ? why[1] : undefined };
  }

  /**
   * A key gone from the doc: a claim let go with nothing recorded under it, before its ask record
   * was written (ASK_WRITE_DELAY_MS after the ask), leaves no record. That is a release, not a sweep.
   */
  private vanished(k: InspectedKey): Draft {
    const c = k.claim;
    return c && !c.finished && k.recorded < c.rev && !k.result && !k.error ? this.released(tag(k), c) : { ...tag(k), type: "swept" };
  }

  private diffMalformed(records: readonly MalformedRecord[], out: Draft[]): void {
    const seen = new Set<unknown>();
    for (const m of records) {
      // Values are a peer's raw content: identified by identity (Yjs keeps it), never walked.
      const id = typeof m.value === "object" && m.value !== null ? m.value : `${m.map}\u0000${m.key ?? ""}\u0000${m.reason}`;
      seen.add(id);
      if (!this.malformedSeen.has(id))
        out.push({ type: "malformed", table: m.map, reason: m.reason, ...(m.key !== undefined ? { key: m.key.slice(0, 200) } : {}) });
    }
    this.malformedSeen = seen;
  }
}

function tag(k: InspectedKey): { key: string; label?: string } {
  return k.label === undefined ? { key: k.key } : { key: k.key, label: k.label };
}

/**
 * The claim `from` passed to replica `to` at `rev` between the inspections `prev` and `next`: a
 * takeover for the store's reason, or, with none, a replacement it cannot explain.
 */
function passed(
  t: { key: string },
  from: InspectedClaim,
  to: string,
  rev: number,
  prev: Inspection,
  next: Inspection,
  departed: Map<string, string>,
  out: Draft[],
): void {
  const reason = takeoverReason(from, prev, next, departed);
  if (reason === undefined) return void out.push({ ...t, type: "replaced", from: from.replicaId, to, rev });
  const afterMs = Math.max(0, from.silentMs + (next.at - prev.at));
  // A panel that did not see the old claim go stale first still tells the store's verdict on it.
  if (!from.stale) out.push({ ...t, type: "stale", replicaId: from.replicaId, rev: from.rev, reason, silentMs: afterMs });
  out.push({ ...t, type: "takeover", from: from.replicaId, to, rev, reason, afterMs });
}

/**
 * Why the store gave up a claim that another replica rewrote at its revision — the store's own
 * view only, never a guess of the panel's: its verdict when last inspected; the claim's own word
 * that its page abandoned it; the claimant's death or departure the store has seen since (its
 * verdict on every claim of that replica); or the store's own deadline for the claim (`staleAt`,
 * its clock) passed with no heartbeat of the claimant seen since, which is what its verdict says
 * now (the store's timer may act on it before this panel's timer shows it). Otherwise the store
 * judged the claim live: a race of two claims, or a reason only the taker saw — undefined.
 */
function takeoverReason(c: InspectedClaim, prev: Inspection, next: Inspection, departed: Map<string, string>): StaleReason | undefined {
  if (c.stale && c.reason) return c.reason;
  if (c.abandoned) return "abandoned";
  const gone = departed.get(c.replicaId);
  if (gone === "lock-released" || gone === "presence-left") return gone;
  const beat = (i: Inspection) => i.replicas.find((r) => r.replicaId === c.replicaId)?.heartbeat;
  const [before, after] = [beat(prev), beat(next)];
  const beatSince = after !== undefined && (before === undefined || before.n !== after.n || before.seenAt !== after.seenAt);
  return next.at >= c.staleAt && !beatSince ? "lease-silence" : undefined;
}
