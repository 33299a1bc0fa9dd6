import type { DocRecords } from "./doc-records.ts";

export const DEFAULT_RETENTION_MS = 24 * 3600_000;

/**
 * Growth bound: records of keys that no replica asked for within `retentionMs` are removed by
 * whichever replica notices. Times here are wall clocks of the askers; a skew of minutes against a
 * window of hours only shifts when a record is collected, never what a fetch sees.
 */
export class Retention {
  private lastSweep = -Infinity;
  private stopped = false;
  /** Keys found with records but no ask record: their window starts when this replica saw them. */
  private readonly noticed = new Map<string, number>();
  /** Ask times to write, batched into one transaction. */
  private readonly due = new Map<string, number>();

  constructor(
    private readonly records: DocRecords,
    private readonly retentionMs: number,
    private readonly replicaId: string,
    private readonly isBusy: (key: string) => boolean,
    private readonly write: (fn: () => void) => void,
    private readonly onSwept: (keys: string[]) => void,
  ) {}

  /**
   * Called when this replica asks for a key; writes at most once per retention/24 per key, after
   * the ask's claim (a microtask later, batched): the doc never shows a key asked for but unclaimed.
   */
  touch(key: string): void {
    if (this.stopped) return;
    const now = Date.now();
    const at = this.records.asks.get(key);
    if (at === undefined || now - at > this.retentionMs / 24) {
      if (this.due.size === 0) queueMicrotask(() => this.flushAsks());
      this.due.set(key, now);
    }
    if (now - this.lastSweep >= this.retentionMs / 24) {
      this.lastSweep = now;
      queueMicrotask(() => this.sweep());
    }
  }

  /** The store is destroyed: write nothing more. */
  stop(): void {
    this.stopped = true;
    this.due.clear();
  }

  private flushAsks(): void {
    if (this.stopped || this.due.size === 0) return;
    const due = [...this.due];
    this.due.clear();
    this.write(() => {
      for (const [key, at] of due) this.records.asks.set(key, at);
    });
  }

  sweep(now = Date.now()): string[] {
    // Queued before a destroy(): a destroyed store writes nothing.
    if (this.stopped) return [];
    const { claims, results, programs, errors, asks, beats } = this.records;
    const cutoff = now - this.retentionMs;
    const keys = new Set([...claims.keys(), ...results.keys(), ...programs.keys(), ...errors.keys(), ...asks.keys()]);
    const expired: string[] = [];
    for (const key of keys) {
      if (this.isBusy(key)) continue;
      let at = asks.get(key);
      if (at === undefined) {
        at = this.noticed.get(key) ?? now;
        this.noticed.set(key, at);
      }
      if (at < cutoff) expired.push(key);
    }
    const oldBeats = beats.entries().filter(([id, b]) => id !== this.replicaId && typeof b.at === "number" && b.at < cutoff);
    if (expired.length === 0 && oldBeats.length === 0) return expired;
    this.write(() => {
      for (const key of expired) {
        for (const map of [claims, results, programs, errors, asks]) if (map.get(key) !== undefined) map.delete(key);
        this.noticed.delete(key);
      }
      for (const [id] of oldBeats) beats.delete(id);
    });
    if (expired.length) this.onSwept(expired);
    return expired;
  }
}
