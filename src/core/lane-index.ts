import * as Y from "yjs";
import { beats, note, type Entry, type Lane, type MalformedRecord, type Slot, type Tables } from "./lane-entry.ts";
import { isPlainObject } from "./request.ts";
import { creatorOf, eachElement, forEachLive, pendingEntries, pendingIds, pendingUpdate } from "./yjs-internals.ts";

export type { Entry, Lane, MalformedRecord, Rank, Slot, Validator } from "./lane-entry.ts";

/**
 * The index of the lanes, kept up to date per transaction from what the transaction changed (its
 * new structs and its delete set), never by re-reading the doc: the work of an update scales with
 * the update, not with the doc (issue 8, finding 5). Each element is validated once, when it
 * arrives; validators stop at the first problem and have bounded cost (records.ts), so a huge or
 * deeply nested record from a peer delays nothing else that arrives with it.
 */
export class LaneIndex {
  /** table → key → slot: nested, so a lookup hashes the key string it is given, not a fresh concatenation. */
  private readonly slots = new Map<string, Map<string, Slot>>();
  readonly winners = new Map<string, Map<string, Entry>>();
  readonly bad = new Map<string, MalformedRecord>();
  /** Slots holding more than one valid entry: the losers are deleted later (Lanes.cleanup). */
  readonly contested = new Set<Slot>();
  /** Lanes whose last entry went since the caller last looked (their writer may remove them). */
  readonly emptied = new Set<Y.Array<unknown>>();
  private readonly lanes = new Map<unknown, Lane>();
  private readonly laneById = new Map<string, Lane>();
  private readonly entries = new Map<string, Entry>();
  /** Lane elements that belong to no (table, key): malformed, or of a table this store lacks. */
  private readonly loose = new Map<string, Lane>();
  /** Entries deleted as an insert of their record came to wait, each until those ids arrive (see remove); `waited`: what waited before. */
  readonly kept = new Map<Entry, string[]>();
  private waited: Uint8Array | undefined;

  constructor(
    private readonly root: Y.Array<unknown>,
    private readonly tables: Tables,
  ) {}

  /** Rebuilds from the doc as it is (construction, a table registered later, or after an observer error). */
  rebuild(): void {
    for (const map of [this.slots, this.winners, this.bad, this.lanes, this.laneById, this.entries, this.loose]) map.clear();
    this.contested.clear();
    for (const t of this.tables.validators.keys()) this.winners.set(t, new Map());
    forEachLive(this.root, (id, value) => this.addRoot(id, value));
    // Kept entries are gone from the doc (see remove, hold): carried over, the same kept ones
    // (RecordMap.held), or the record reads as unclaimed; a held insert that arrived is read from its lane.
    for (const [e, ids] of [...this.kept]) {
      const lane = e.lane.array === this.root ? e.lane : this.lanes.get(e.lane.array);
      this.kept.delete(e);
      if (!lane || this.entries.has(e.id)) continue;
      lane.ids.add(e.id);
      this.kept.set(this.track(lane, e.id, e.table, e.key, e.seq, e.valid), ids);
    }
    this.hold(pendingUpdate(this.root.doc!));
  }

  /**
   * A held-back insert that rewrote its record (seq above 1) where the record has no entry left:
   * the delete came first (before this store started, or in the same update as a state loaded
   * into it), and the entry it deleted is gone from the doc (its content collected). Read as the
   * record until it arrives or is held no more (apply), or a claim taken over reads as none (4, 8).
   * Only what came to wait since `waited`; an insert that deleted nothing may never arrive (14).
   */
  private hold(update: Uint8Array | undefined, changed?: Map<string, Set<string>>): void {
    for (const [table, keys] of pendingEntries(update))
      for (const [key, held] of keys)
        if (this.tables.validators.has(table as string) && !this.slot(table as string, key as string))
          for (const [id, raw] of held)
            if ((raw as { s: number }).s > 1 && !pendingIds(this.waited, { table, key } as Entry).includes(id)) {
              this.addEntry({ array: this.root, creator: parseInt(id), ids: new Set() }, id, raw, changed);
              const e = this.entries.get(id);
              if (e) this.kept.set(e, [id]);
            }
    this.waited = update;
  }

  /** Applies one transaction; `changed` collects (table → keys) for the listeners. */
  apply(tr: Y.Transaction, changed: Map<string, Set<string>>): void {
    const store = tr.doc.store;
    const waiting = pendingUpdate(tr.doc);
    // First: a held insert read as its record (rebuild) that arrives now is read from its lane.
    for (const [e, ids] of this.kept)
      if (!ids.some((id) => pendingIds(waiting, e).includes(id)) && this.kept.delete(e)) this.remove(e.id, changed);
    const added: Y.Item[] = [];
    tr.afterState.forEach((after, client) => {
      const before = tr.beforeState.get(client) ?? 0;
      const structs = store.clients.get(client);
      if (after <= before || !structs) return;
      for (let i = Y.findIndexSS(structs, before); i < structs.length && structs[i]!.id.clock < after; i++) {
        const s = structs[i];
        // Not a value set by key (a peer whose doc took the root for a Y.Map): no element of the
        // root or a lane, it is never read at the start (rebuild) either, so no replica reads it.
        if (s instanceof Y.Item && !s.deleted && s.countable && s.parentSub === null) added.push(s);
      }
    });
    // Lanes before their entries: a lane and what was pushed into it can arrive in one update.
    for (const item of added) if (item.parent === this.root) eachElement(item, (id, value) => this.addRoot(id, value, changed));
    for (const item of added) {
      const lane = this.lanes.get(item.parent);
      if (lane) eachElement(item, (id, value) => this.addEntry(lane, id, value, changed));
    }
    // Exact: Yjs lists there the items this transaction deleted (a delete of what is not here yet waits apart).
    tr.deleteSet.clients.forEach((ranges, client) => {
      for (const { clock, len } of ranges) for (const id of this.within(client, clock, len)) this.remove(id, changed, !tr.local);
    });
    if (waiting !== this.waited) this.hold(waiting, changed);
  }

  /** What this replica rewrites or deletes itself is gone at once (see remove), kept entries too: no delete of the doc reaches them. */
  forget(slot: Slot | undefined): void {
    for (const e of [...(slot?.entries ?? [])]) if (this.kept.delete(e)) this.remove(e.id, new Map());
  }

  /** The ids of a deleted range it may hold (a peer's 12-byte update deletes 2^31 clocks: one lookup each froze the page). */
  private within(client: number, clock: number, len: number): Iterable<string> {
    if (len < 256) return Array.from({ length: len }, (_, i) => `${client}:${clock + i}`);
    const inRange = ([who, at]: number[]) => who === client && at! >= clock && at! < clock + len;
    const held = [this.bad, this.laneById, this.loose, this.entries].flatMap((map) => [...map.keys()]);
    return new Set(held.filter((id) => inRange(id.split(":").map(Number))));
  }

  lane(array: Y.Array<unknown>): Lane | undefined {
    return this.lanes.get(array);
  }

  slot(table: string, key: string): Slot | undefined {
    return this.slots.get(table)?.get(key);
  }

  private addRoot(id: string, value: unknown, changed?: Map<string, Set<string>>): void {
    if (this.laneById.has(id) || this.bad.has(id)) return;
    if (!(value instanceof Y.Array)) {
      this.bad.set(id, { map: "lanes", reason: "lane is not a Y.Array", value });
      return;
    }
    const lane: Lane = { array: value, creator: creatorOf(value), ids: new Set() };
    this.lanes.set(value, lane);
    this.laneById.set(id, lane);
    forEachLive(value, (entryId, raw) => this.addEntry(lane, entryId, raw, changed));
  }

  private addEntry(lane: Lane, id: string, raw: unknown, changed?: Map<string, Set<string>>): void {
    if (this.entries.has(id) || this.bad.has(id)) return;
    lane.ids.add(id);
    const shaped = isPlainObject(raw) && typeof raw.t === "string" && typeof raw.k === "string";
    if (!shaped || !Object.hasOwn(raw, "v") || typeof raw.s !== "number") {
      this.bad.set(id, { map: "lanes", reason: "entry is not a { t, k, v, s } record", value: raw });
      // Still one of (t, k)'s entries: a rewrite of the record deletes it with the rest.
      if (shaped) this.track(lane, id, raw.t as string, raw.k as string, raw.s, undefined, changed);
      else this.loose.set(id, lane);
      return;
    }
    const table = raw.t as string;
    const key = raw.k as string;
    const validate = this.tables.validators.get(table);
    if (!validate) {
      this.bad.set(id, { map: "lanes", key, reason: `unknown table ${JSON.stringify(table).slice(0, 40)}`, value: raw });
      this.loose.set(id, lane);
      return;
    }
    const checked = validate(raw.v);
    if (typeof checked === "string") {
      this.bad.set(id, { map: table, key, reason: checked, value: raw.v });
      this.track(lane, id, table, key, raw.s, undefined, changed);
      return;
    }
    const rank = this.tables.ranks.get(table)?.(checked) ?? 0;
    const tie = this.tables.ties.get(table)?.(checked) ?? 0;
    this.track(lane, id, table, key, raw.s, { value: checked, rank, tie }, changed);
  }

  private track(
    lane: Lane,
    id: string,
    table: string,
    key: string,
    seq: unknown,
    valid: Entry["valid"],
    changed?: Map<string, Set<string>>,
  ): Entry {
    const [client, clock] = id.split(":").map(Number) as [number, number];
    const entry: Entry = { id, client, clock, lane, table, key, seq: typeof seq === "number" && Number.isFinite(seq) ? seq : 0, valid };
    this.entries.set(id, entry);
    let inTable = this.slots.get(table);
    if (!inTable) this.slots.set(table, (inTable = new Map()));
    let slot = inTable.get(key);
    if (!slot) inTable.set(key, (slot = { table, key, entries: [] }));
    slot.entries.push(entry);
    if (valid) this.elect(slot);
    note(changed, table, key);
    return entry;
  }

  private remove(id: string, changed: Map<string, Set<string>>, held?: boolean): void {
    this.bad.delete(id);
    const lane = this.laneById.get(id);
    if (lane) {
      this.laneById.delete(id);
      this.lanes.delete(lane.array);
      for (const entryId of lane.ids) this.remove(entryId, changed);
      return;
    }
    const loose = this.loose.get(id);
    if (loose && this.loose.delete(id)) this.leave(loose, id);
    const entry = this.entries.get(id);
    if (!entry) return;
    // A peer's rewrite is one delete and one insert, yet Yjs applies the delete at once and holds
    // back the insert while an earlier update of its writer is missing: read in between, a claim
    // taken over would be "no claim" (4, 8). What this replica deletes itself is gone at once; and
    // an entry that waited already holds nothing: its writer's earlier update may never come.
    const ids = held ? pendingIds(pendingUpdate(this.root.doc!), entry).filter((id) => !pendingIds(this.waited, entry).includes(id)) : [];
    // Still read, yet changed: its writer, running, writes it again for those that read it gone (decide).
    if (ids.length) return void (this.kept.set(entry, ids), note(changed, entry.table, entry.key));
    this.entries.delete(id);
    this.leave(entry.lane, id);
    const inTable = this.slots.get(entry.table)!;
    const slot = inTable.get(entry.key)!;
    const at = slot.entries.indexOf(entry);
    if (at >= 0) slot.entries.splice(at, 1);
    if (entry.valid) this.elect(slot);
    if (slot.entries.length === 0) inTable.delete(entry.key);
    note(changed, entry.table, entry.key);
  }

  private leave(lane: Lane, id: string): void {
    lane.ids.delete(id);
    if (lane.ids.size === 0) this.emptied.add(lane.array);
  }

  /** Every replica picks the same winner: rank, then tie, then seq, then the lane creator's clientID. */
  private elect(slot: Slot): void {
    let winner: Entry | undefined;
    let valid = 0;
    for (const e of slot.entries) {
      if (!e.valid) continue;
      valid++;
      if (!winner || beats(e, winner)) winner = e;
    }
    slot.winner = winner;
    const table = this.winners.get(slot.table);
    if (winner) table?.set(slot.key, winner);
    else table?.delete(slot.key);
    if (valid > 1) this.contested.add(slot);
    else this.contested.delete(slot);
  }
}
