import * as Y from "yjs";
import { SharedFetchInputError } from "./errors.ts";
import { messageOf } from "./fetcher.ts";
import { isPlainObject } from "./request.ts";

/** A record read from the doc that failed validation: ignored, kept for devtools. */
export type MalformedRecord = { map: string; key?: string; reason: string; value: unknown };

type Entry = { table: string; key: string; value: unknown; rank: number; seq: number; lane: number; raw: object };
type Validator = (value: unknown) => unknown;
/** Orders racing records of one table before seq does, e.g. a higher revision always wins. */
export type Rank = (value: unknown) => number;
type ChangeListener = (keys: Set<string>) => void;

/**
 * Every record in one root Y.Array of *lanes*; each replica appends only to its own lane (a nested
 * Y.Array), as `{ t: table, k: key, v: value, s: seq }` entries.
 *
 * Why lanes: Yjs keeps a tombstone for every deleted item, and tombstones only merge when they are
 * consecutive items of one client. A Y.Map leaves one unmergeable tombstone per overwrite and a
 * shared Y.Array interleaves replicas' items; both grow with history (measured: bench/run.ts).
 * A lane holds one client's consecutive inserts, so its overwritten records merge into a few runs
 * and the doc stays proportional to the live records.
 *
 * A record is replaced by deleting every entry of its (table, key) in all lanes and appending the
 * new one with seq = highest seen + 1, in one transaction. Entries that race (two peers before
 * they sync) are ordered by the table's rank (a result's revision: a partitioned replica's older
 * revision never beats a newer one), then seq, then the lane creator's clientID: every replica
 * picks the same winner, and a deferred cleanup deletes the others.
 */
export class Lanes {
  readonly root: Y.Array<unknown>;
  private mine: Y.Array<unknown> | undefined;
  private readonly validators = new Map<string, Validator>();
  private readonly ranks = new Map<string, Rank>();
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private index = new Map<string, Map<string, Entry>>();
  private bad: MalformedRecord[] = [];
  private dirty = true;
  private cleanupQueued = false;
  private frozen = false;
  /** Validation is per stored entry object, which Yjs keeps stable: a big result is checked once. */
  private readonly checked = new WeakMap<object, unknown>();
  private readonly observer: (events: Y.YEvent<Y.AbstractType<unknown>>[]) => void;
  private readonly markDirty: (tr: Y.Transaction) => void;

  constructor(
    readonly doc: Y.Doc,
    name: string,
  ) {
    try {
      this.root = doc.getArray<unknown>(name);
    } catch (error) {
      // Yjs refuses a root name already taken by another type in this doc (e.g. a Y.Map).
      throw new SharedFetchInputError(`shared-fetch: the doc's root type ${JSON.stringify(name)} is already used as another type; give shared-fetch a doc (or a root) of its own (${messageOf(error)})`);
    }
    this.observer = (events) => {
      // Runs inside the writer's transaction: read and notify only; never throw, never write.
      try {
        this.dirty = true;
        const changed = new Map<string, Set<string>>();
        const note = (content: unknown) => {
          if (content instanceof Y.Array) content.forEach(note);
          else if (isPlainObject(content) && typeof content.t === "string" && typeof content.k === "string") {
            let keys = changed.get(content.t);
            if (!keys) changed.set(content.t, (keys = new Set()));
            keys.add(content.k);
          }
        };
        for (const event of events) {
          const collect = (item: Y.Item) => item.content.getContent().forEach(note);
          event.changes.added.forEach(collect);
          event.changes.deleted.forEach(collect);
        }
        for (const [table, keys] of changed) {
          for (const listener of this.listeners.get(table) ?? []) {
            try {
              listener(keys);
            } catch (error) {
              report(error);
            }
          }
        }
      } catch (error) {
        report(error);
      }
    };
    this.root.observeDeep(this.observer);
    // An observer elsewhere may read before ours ran in the same transaction.
    this.markDirty = (tr) => {
      for (const type of tr.changed.keys()) {
        if (type === (this.root as unknown) || type.parent === (this.root as unknown)) this.dirty = true;
      }
    };
    doc.on("beforeObserverCalls", this.markDirty);
  }

  table(name: string, validate: Validator, rank?: Rank): void {
    this.validators.set(name, validate);
    if (rank) this.ranks.set(name, rank);
    this.dirty = true;
  }

  onChange(table: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(table);
    if (!set) this.listeners.set(table, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  get(table: string, key: string): unknown {
    return this.read().get(table)?.get(key)?.value;
  }

  entries(table: string): [string, unknown][] {
    return [...(this.read().get(table) ?? [])].map(([k, e]) => [k, e.value]);
  }

  malformed(): MalformedRecord[] {
    this.read();
    return this.bad;
  }

  /**
   * Development simulation of a crash (dev-simulations.ts): from now on this replica writes
   * nothing at all — no claim, release, heartbeat or cleanup — while its records stay in the doc.
   */
  freeze(): void {
    this.frozen = true;
  }

  set(table: string, key: string, value: unknown): void {
    if (this.frozen) return;
    this.doc.transact(() => {
      const seq = this.deleteEntries(table, key);
      this.lane().push([{ t: table, k: key, v: value, s: seq + 1 }]);
    });
  }

  delete(table: string, key: string): void {
    if (this.frozen) return;
    this.doc.transact(() => this.deleteEntries(table, key));
  }

  destroy(): void {
    this.root.unobserveDeep(this.observer);
    this.doc.off("beforeObserverCalls", this.markDirty);
    this.listeners.clear();
  }

  /** Created on the first write only: a store writes nothing at construction or while idle. */
  private lane(): Y.Array<unknown> {
    if (!this.mine || this.mine._item?.deleted) {
      this.mine = new Y.Array<unknown>();
      this.root.push([this.mine]);
    }
    return this.mine;
  }

  private lanes(): Y.Array<unknown>[] {
    return this.root.toArray().filter((l): l is Y.Array<unknown> => l instanceof Y.Array);
  }

  /** Deletes every entry of (table, key) in every lane; returns the highest seq it saw. */
  private deleteEntries(table: string, key: string): number {
    let seq = 0;
    for (const lane of this.lanes()) {
      const values = lane.toArray();
      for (let i = values.length - 1; i >= 0; i--) {
        const raw = values[i];
        if (isPlainObject(raw) && raw.t === table && raw.k === key) {
          if (typeof raw.s === "number" && Number.isFinite(raw.s)) seq = Math.max(seq, raw.s);
          lane.delete(i, 1);
        }
      }
    }
    return Math.min(seq, Number.MAX_SAFE_INTEGER - 1);
  }

  private read(): Map<string, Map<string, Entry>> {
    if (!this.dirty) return this.index;
    const index = new Map<string, Map<string, Entry>>();
    const bad: MalformedRecord[] = [];
    let duplicates = false;
    for (const [t] of this.validators) index.set(t, new Map());
    for (const lane of this.root.toArray()) {
      if (!(lane instanceof Y.Array)) {
        bad.push({ map: "lanes", reason: "lane is not a Y.Array", value: lane });
        continue;
      }
      const laneId = lane._item?.id.client ?? 0;
      for (const raw of lane.toArray()) {
        if (!isPlainObject(raw) || typeof raw.t !== "string" || typeof raw.k !== "string" || !Object.hasOwn(raw, "v") || typeof raw.s !== "number") {
          bad.push({ map: "lanes", reason: "entry is not a { t, k, v, s } record", value: raw });
          continue;
        }
        const validate = this.validators.get(raw.t);
        const table = index.get(raw.t);
        if (!validate || !table) {
          bad.push({ map: "lanes", key: raw.k, reason: `unknown table ${JSON.stringify(raw.t).slice(0, 40)}`, value: raw });
          continue;
        }
        let checked = this.checked.get(raw);
        if (checked === undefined) {
          checked = validate(raw.v);
          this.checked.set(raw, checked);
        }
        if (typeof checked === "string") {
          bad.push({ map: raw.t, key: raw.k, reason: checked, value: raw.v });
          continue;
        }
        const rank = this.ranks.get(raw.t)?.(checked) ?? 0;
        const entry: Entry = { table: raw.t, key: raw.k, value: checked, rank, seq: raw.s, lane: laneId, raw };
        const other = table.get(raw.k);
        if (other) duplicates = true;
        if (!other || beats(entry, other)) table.set(raw.k, entry);
      }
    }
    this.index = index;
    this.bad = bad;
    this.dirty = false;
    if (duplicates) this.queueCleanup();
    return index;
  }

  /** Deferred: never write inside an observer (its exceptions would reach the writer). */
  private queueCleanup(): void {
    if (this.cleanupQueued || this.frozen) return;
    this.cleanupQueued = true;
    queueMicrotask(() => {
      this.cleanupQueued = false;
      try {
        const winners = this.read();
        this.doc.transact(() => {
          for (const lane of this.lanes()) {
            const values = lane.toArray();
            for (let i = values.length - 1; i >= 0; i--) {
              const raw = values[i];
              if (!isPlainObject(raw) || typeof raw.t !== "string" || typeof raw.k !== "string") continue;
              const winner = winners.get(raw.t)?.get(raw.k);
              if (winner && winner.raw !== raw && typeof this.checked.get(raw) !== "string") lane.delete(i, 1);
            }
          }
        }, "shared-fetch:cleanup");
      } catch (error) {
        report(error);
      }
    });
  }
}

function beats(a: Entry, b: Entry): boolean {
  if (a.rank !== b.rank) return a.rank > b.rank;
  if (a.seq !== b.seq) return a.seq > b.seq;
  return a.lane > b.lane;
}

/** A typed view of one table of the lanes. */
export class RecordMap<T> {
  constructor(
    private readonly lanes: Lanes,
    readonly name: string,
    validate: (value: unknown) => T | string,
    rank?: (value: T) => number,
  ) {
    lanes.table(name, validate, rank as Rank | undefined);
  }

  get(key: string): T | undefined {
    return this.lanes.get(this.name, key) as T | undefined;
  }

  keys(): string[] {
    return this.entries().map(([k]) => k);
  }

  entries(): [string, T][] {
    return this.lanes.entries(this.name) as [string, T][];
  }

  set(key: string, value: T): void {
    this.lanes.set(this.name, key, value);
  }

  delete(key: string): void {
    this.lanes.delete(this.name, key);
  }

  onChange(listener: (keys: Set<string>) => void): () => void {
    return this.lanes.onChange(this.name, listener);
  }
}

function report(error: unknown): void {
  queueMicrotask(() => console.error("shared-fetch: doc observer failed", error));
}
