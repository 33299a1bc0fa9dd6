import type * as Y from "yjs";
import { isPlainObject } from "./request.ts";

/** A record read from the doc that failed validation: ignored, kept for devtools. */
export type MalformedRecord = { map: string; key?: string; reason: string; value: unknown };

type Entry<T> = { key: string; value: T; raw: unknown };

/**
 * A key→record map stored as `{ k, v }` entries in a Y.Array, newest (rightmost) winning.
 *
 * Why not a Y.Map: every overwrite of a Y.Map key leaves a tombstone item behind that can never be
 * merged away, so a map rewritten on every request grows with history. Deleted array items merge
 * and are garbage collected, so this stays proportional to the live records (the idea of
 * y-utility's YKeyValue, which we do not use because its observer throws on a malformed entry —
 * and an exception in an observer is rethrown into the writer's transaction).
 */
export class RecordMap<T> {
  readonly name: string;
  private readonly array: Y.Array<unknown>;
  private readonly validate: (value: unknown) => T | string;
  private index = new Map<string, Entry<T>>();
  private bad: MalformedRecord[] = [];
  /** Validation is per stored entry object, which Yjs keeps stable: a big result is checked once. */
  private readonly checked = new WeakMap<object, T | string>();
  private dirty = true;
  private cleanupQueued = false;
  private readonly listeners = new Set<(keys: Set<string>, origin: unknown) => void>();
  private readonly observer: (event: Y.YArrayEvent<unknown>, tr: Y.Transaction) => void;
  private readonly markDirty: (tr: Y.Transaction) => void;

  /** `validate` returns the record or a reason string; it must not throw. */
  constructor(array: Y.Array<unknown>, name: string, validate: (value: unknown) => T | string) {
    this.array = array;
    this.name = name;
    this.validate = validate;
    this.observer = (event, tr) => {
      // Runs inside the writer's transaction: read and notify only, never throw, never write here.
      try {
        this.dirty = true;
        const keys = new Set<string>();
        const collect = (item: Y.Item) => {
          for (const c of item.content.getContent()) {
            if (isPlainObject(c) && Object.hasOwn(c, "k") && typeof c.k === "string") keys.add(c.k);
          }
        };
        event.changes.added.forEach(collect);
        event.changes.deleted.forEach(collect);
        for (const listener of this.listeners) {
          try {
            listener(keys, tr.origin);
          } catch (error) {
            reportListenerError(error);
          }
        }
      } catch (error) {
        reportListenerError(error);
      }
    };
    array.observe(this.observer);
    // Another map's observer may read this one before our own observer ran in the same transaction.
    this.markDirty = (tr) => {
      if (tr.changed.has(array as unknown as Y.AbstractType<Y.YEvent<any>>)) this.dirty = true; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    array.doc?.on("beforeObserverCalls", this.markDirty);
  }

  onChange(listener: (keys: Set<string>, origin: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(key: string): T | undefined {
    return this.read().get(key)?.value;
  }

  keys(): string[] {
    return [...this.read().keys()];
  }

  entries(): [string, T][] {
    return [...this.read()].map(([k, e]) => [k, e.value]);
  }

  malformed(): readonly MalformedRecord[] {
    this.read();
    return this.bad;
  }

  /** Replace the record for `key`: one transaction, so no observer sees the key without a record. */
  set(key: string, value: T): void {
    const doc = this.array.doc;
    const run = () => {
      this.deleteEntries(key);
      this.array.push([{ k: key, v: value }]);
    };
    if (doc) doc.transact(run);
    else run();
  }

  delete(key: string): void {
    const doc = this.array.doc;
    if (doc) doc.transact(() => this.deleteEntries(key));
    else this.deleteEntries(key);
  }

  destroy(): void {
    this.array.unobserve(this.observer);
    this.array.doc?.off("beforeObserverCalls", this.markDirty);
    this.listeners.clear();
  }

  private deleteEntries(key: string): void {
    const values = this.array.toArray();
    for (let i = values.length - 1; i >= 0; i--) {
      const entry = values[i];
      if (isPlainObject(entry) && entry.k === key) this.array.delete(i, 1);
    }
  }

  private read(): Map<string, Entry<T>> {
    if (!this.dirty) return this.index;
    const index = new Map<string, Entry<T>>();
    const bad: MalformedRecord[] = [];
    let duplicates = false;
    const values = this.array.toArray();
    for (let i = values.length - 1; i >= 0; i--) {
      const raw = values[i];
      if (!isPlainObject(raw) || !Object.hasOwn(raw, "k") || typeof raw.k !== "string" || !Object.hasOwn(raw, "v")) {
        bad.push({ map: this.name, reason: "entry is not a { k: string, v } object", value: raw });
        continue;
      }
      const previous = index.get(raw.k);
      if (previous) {
        duplicates = true;
        continue;
      }
      let checked = this.checked.get(raw);
      if (checked === undefined) {
        checked = this.validate(raw.v);
        this.checked.set(raw, checked);
      }
      if (typeof checked === "string") {
        bad.push({ map: this.name, key: raw.k, reason: checked, value: raw.v });
        continue;
      }
      index.set(raw.k, { key: raw.k, value: checked, raw });
    }
    this.index = index;
    this.bad = bad;
    this.dirty = false;
    if (duplicates) this.queueCleanup();
    return index;
  }

  /**
   * Two replicas that set one key concurrently both push an entry; after they sync, every replica
   * agrees on the rightmost one and deletes the others. Deferred: never write inside an observer.
   */
  private queueCleanup(): void {
    if (this.cleanupQueued) return;
    this.cleanupQueued = true;
    queueMicrotask(() => {
      this.cleanupQueued = false;
      const winners = this.read();
      const doc = this.array.doc;
      const run = () => {
        const values = this.array.toArray();
        for (let i = values.length - 1; i >= 0; i--) {
          const raw = values[i];
          if (!isPlainObject(raw) || typeof raw.k !== "string") continue;
          const winner = winners.get(raw.k);
          if (winner && winner.raw !== raw && typeof this.validate(raw.v) !== "string") this.array.delete(i, 1);
        }
      };
      try {
        if (doc) doc.transact(run, "shared-fetch:cleanup");
        else run();
      } catch (error) {
        reportListenerError(error);
      }
    });
  }
}

function reportListenerError(error: unknown): void {
  // Never rethrow: an exception here would surface in whichever replica's transaction caused it.
  queueMicrotask(() => {
    console.error("shared-fetch: listener failed", error);
  });
}
