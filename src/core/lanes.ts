import * as Y from "yjs";
import { SharedFetchInputError } from "./errors.ts";
import { messageOf } from "./fetcher.ts";
import { CLEANUP, CLEANUP_FALLBACK_MS, cleanContests, deleteRecord, type Pushed } from "./lane-deletes.ts";
import { LaneIndex, type MalformedRecord, type Rank, type Validator } from "./lane-index.ts";
import { unrefTimer } from "./unref-timer.ts";
import { isDeletedType } from "./yjs-internals.ts";

export type { MalformedRecord, Rank } from "./lane-index.ts";
// The typed view of one table lives beside the lanes it reads.
export { RecordMap } from "./record-map.ts";
type ChangeListener = (keys: Set<string>) => void;

/**
 * Entries a replica appends to one lane before it starts the next. A write walks its lane (Yjs
 * appends by walking to the end, and a record is deleted by position), so lanes stay short; an
 * emptied old lane is removed by its writer. Measured (bench/run.ts): the walk over 100 000 items
 * of one long lane cost 4 ms per write.
 */
export const LANE_CAP = 256;

/**
 * Every record in one root Y.Array of *lanes*; each replica appends only to its own lanes (nested
 * Y.Arrays), as `{ t: table, k: key, v: value, s: seq }` entries.
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
 * revision never beats a newer one), then its tie (a result's `at`, within one revision), then
 * seq, then the lane creator's clientID: every replica picks the same winner, and a deferred
 * cleanup deletes the others.
 */
export class Lanes {
  readonly root: Y.Array<unknown>;
  private mine: Y.Array<unknown> | undefined;
  private minePushes = 0;
  /** Lanes this instance created: only their writer removes them once empty. */
  private readonly own = new Set<Y.Array<unknown>>();
  private readonly validators = new Map<string, Validator>();
  private readonly ranks = new Map<string, Rank>();
  private readonly ties = new Map<string, Rank>();
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private readonly index: LaneIndex;
  private dirty = true;
  private cleanupQueued = false;
  private fallback: ReturnType<typeof setTimeout> | undefined;
  private readonly winnerCleans = new Set<string>();
  /** Entries pushed in the transaction under way: not indexed until it ends, yet a rewrite must see them. */
  private readonly pushed = new Map<string, Pushed>();
  private readonly onTransaction: (tr: Y.Transaction) => void;
  frozen = false; // dev.crash (see freeze)
  /** Tables this replica writes nothing into (a development simulation: dev-simulations.ts). */
  private readonly muted = new Set<string>();

  constructor(
    readonly doc: Y.Doc,
    name: string,
  ) {
    try {
      this.root = doc.getArray<unknown>(name);
    } catch (error) {
      // Yjs refuses a root name already taken by another type in this doc (e.g. a Y.Map).
      throw new SharedFetchInputError(
        `shared-fetch: the doc's root type ${JSON.stringify(name)} is already used as another type; give shared-fetch a doc (or a root) of its own (${messageOf(error)})`,
      );
    }
    this.index = new LaneIndex(this.root, { validators: this.validators, ranks: this.ranks, ties: this.ties });
    // Before any observer of the transaction runs, so every observer reads an index that is up
    // to date. Inside the writer's transaction: read and notify only; never throw, never write.
    this.onTransaction = (tr) => {
      // A crashed replica (dev-simulations.ts) reads nothing more: its view stays as it died.
      if (this.frozen) return;
      this.pushed.clear();
      const changed = new Map<string, Set<string>>();
      try {
        if (this.dirty) this.rebuild();
        this.index.apply(tr, changed);
      } catch (error) {
        this.dirty = true;
        report(error);
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
      // Not after our own cleanup: what it could not resolve, another round would not either.
      if (tr.origin === CLEANUP) return;
      let emptied = false;
      for (const lane of this.index.emptied) if (this.own.has(lane) && lane !== this.mine) emptied = true;
      this.index.emptied.clear();
      if (emptied || this.index.contested.size > 0) this.queueCleanup();
    };
    doc.on("beforeObserverCalls", this.onTransaction);
  }

  /**
   * `winnerCleans`: a contest of this table is cleaned by its winner's writer (see cleanup).
   * `tie`: orders records of one rank before seq does.
   */
  table(name: string, validate: Validator, rank?: Rank, winnerCleans = false, tie?: Rank): void {
    this.validators.set(name, validate);
    if (rank) this.ranks.set(name, rank);
    if (tie) this.ties.set(name, tie);
    if (winnerCleans) this.winnerCleans.add(name);
    this.dirty = true;
  }

  onChange(table: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(table);
    if (!set) this.listeners.set(table, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  get(table: string, key: string): unknown {
    return this.read().slot(table, key)?.winner?.valid?.value;
  }

  /** Every valid record of (table, key) in any lane, the winner among them: racing writes not yet cleaned up. */
  contenders(table: string, key: string): unknown[] {
    const slot = this.read().slot(table, key);
    return slot ? slot.entries.flatMap((e) => (e.valid ? [e.valid.value] : [])) : [];
  }

  entries(table: string): [string, unknown][] {
    return [...(this.read().winners.get(table) ?? [])].map(([k, e]) => [k, e.valid!.value]);
  }

  malformed(): MalformedRecord[] {
    return [...this.read().bad.values()];
  }

  /**
   * Development simulation of a crash (dev-simulations.ts): from now on this replica writes
   * nothing at all — no claim, release, heartbeat or cleanup — while its records stay in the doc,
   * and it reads nothing more either: updates that still reach the doc are not indexed, so its
   * view (and its listeners) stay as they were when it died.
   */
  freeze(): void {
    this.read();
    this.frozen = true;
  }

  /**
   * Development simulation (dev-simulations.ts): while muted, this replica's writes into `table`
   * are skipped, e.g. its heartbeats, as if its timers never ran; everything else goes on.
   */
  mute(table: string, muted: boolean): void {
    if (muted) this.muted.add(table);
    else this.muted.delete(table);
  }

  set(table: string, key: string, value: unknown): void {
    if (this.frozen || this.muted.has(table)) return;
    this.doc.transact(() => {
      const seq = this.deleteEntries(table, key);
      if (!this.mine || isDeletedType(this.mine) || this.minePushes >= LANE_CAP) this.openLane();
      this.mine!.push([{ t: table, k: key, v: value, s: seq + 1 }]);
      this.minePushes++;
      const client = this.doc.clientID;
      this.pushed.set(`${table}\u0000${key}`, { lane: this.mine!, client, clock: Y.getState(this.doc.store, client) - 1, seq: seq + 1 });
    });
  }

  delete(table: string, key: string): void {
    if (this.frozen) return;
    this.doc.transact(() => this.deleteEntries(table, key));
  }

  destroy(): void {
    clearTimeout(this.fallback);
    this.fallback = undefined;
    this.doc.off("beforeObserverCalls", this.onTransaction);
    this.listeners.clear();
  }

  /** Created on the first write only: a store writes nothing at construction or while idle. */
  private openLane(): void {
    // The lane left behind may be empty already (its last entry overwritten while it was the
    // current one, which is never removed): no later change of it would queue its removal.
    if (this.mine) this.queueCleanup();
    this.mine = new Y.Array<unknown>();
    this.minePushes = 0;
    this.root.push([this.mine]);
    this.own.add(this.mine);
  }

  /** Deletes every entry of (table, key) in every lane; returns the highest seq it saw. */
  private deleteEntries(table: string, key: string): number {
    const id = `${table}\u0000${key}`;
    const seq = deleteRecord(this.read(), table, key, this.pushed.get(id));
    this.pushed.delete(id);
    return seq;
  }

  read(): LaneIndex {
    if (this.dirty && !this.frozen) this.rebuild();
    return this.index;
  }

  private rebuild(): void {
    this.index.rebuild();
    this.dirty = false;
  }

  /** Deferred: never write inside an observer (its exceptions would reach the writer). */
  private queueCleanup(): void {
    if (this.cleanupQueued || this.frozen) return;
    this.cleanupQueued = true;
    queueMicrotask(() => {
      this.cleanupQueued = false;
      this.cleanup(false);
    });
  }

  /** Deferred contests and emptied lanes (see cleanContests); the fallback round cleans them `all`. */
  private cleanup(all: boolean): void {
    if (this.frozen) return;
    try {
      // The index read first: rebuilt if dirty, as every read of the lanes is.
      cleanContests(this.doc, this.root, this.read(), this.own, this.mine, this.winnerCleans, all, () => this.cleanLater());
    } catch (error) {
      report(error);
    }
  }

  private cleanLater(): void {
    if (this.fallback !== undefined) return;
    this.fallback = setTimeout(() => {
      this.fallback = undefined;
      this.cleanup(true);
    }, CLEANUP_FALLBACK_MS);
    unrefTimer(this.fallback);
  }
}

function report(error: unknown): void {
  queueMicrotask(() => console.error("shared-fetch: doc observer failed", error));
}
