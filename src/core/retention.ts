import { connectorsOf } from "./connectors.ts";
import type { DocRecords } from "./doc-records.ts";
import { unrefTimer } from "./unref-timer.ts";

export const DEFAULT_RETENTION_MS = 24 * 3600_000;

/**
 * How long an ask record waits before it is written. Retention counts in hours, so nothing is
 * lost by waiting; what is won: the write leaves the boot of a page (K tabs opening at once each
 * wrote one, every other tab applied it, and the contest cost one more write to clean), and a
 * replica that sees another's ask for the key in the meantime writes none.
 */
export const ASK_WRITE_DELAY_MS = 1000;

/**
 * Growth bound: records of keys that nobody asked for within `retentionMs` are removed by
 * whichever replica notices.
 *
 * Judged on the observer's own clock (DESIGN.md: never compare another machine's timestamp with
 * `Date.now()`): a key's age is how long *this* replica has seen it without its ask record
 * changing. The clock starts when this replica first sees the key (or when it was created, for
 * what the doc already held) and restarts whenever any replica rewrites the ask record, or the
 * key's result, error or program (written because someone asked). The time
 * inside an ask record is informational only; a device whose clock is a day ahead erases nothing
 * that others asked for within the window.
 */
export class Retention {
  private lastSweep = -Infinity;
  private stopped = false;
  private readonly born = Date.now();
  /** Key → when this replica last saw it asked for (or first saw the key), on its own clock. */
  private readonly since = new Map<string, number>();
  /** Replica → when this replica last saw its heartbeat change. */
  private readonly beatSince = new Map<string, number>();
  /** Key → when this replica last saw it asked for: its ask record, result, error or program written (by anyone). */
  private readonly askSeen = new Map<string, number>();
  /** Ask times to write, batched into one transaction. */
  private readonly due = new Map<string, number>();
  private askTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly unobserve: (() => void)[];

  constructor(
    private readonly records: DocRecords,
    private readonly retentionMs: number,
    private readonly replicaId: string,
    private readonly isBusy: (key: string) => boolean,
    private readonly write: (fn: () => void) => void,
    private readonly onSwept: (keys: string[]) => void,
    /** This replica's own claim on the key is in flight: its result (or error) will count as the ask. */
    private readonly fetching: (key: string) => boolean,
    /** The doc's initial sync is done: what arrives before it was written earlier, not asked for now. */
    private readonly synced: () => boolean,
  ) {
    const { claims, results, programs, errors, asks, beats } = records;
    // Inside the writer's transaction: only note the time (observers must not write or throw).
    const firstSeen = (keys: Set<string>) => {
      const now = Date.now();
      let own: boolean | undefined;
      for (const key of keys) if (!this.since.has(key)) this.since.set(key, this.dated(key, now, (own ??= this.ownClock())));
    };
    // Someone asked for the key now, and every replica sees it: its clock restarts everywhere, and
    // an ask of ours still pending would say nothing more.
    const asked = (key: string, now: number) => {
      this.since.set(key, now);
      this.askSeen.set(key, now);
      this.due.delete(key);
    };
    // A result, error or program is written because a replica asked for it (or shows it), so it
    // counts as an ask: the replica that fetched a key writes no ask record for it. Ask records
    // are left to the replicas that read what others fetched.
    // What the initial sync loads (IndexedDB, a server) was written before: it restarts no one
    // else's clock, so an ask of ours still pending is still needed.
    const written = (map: { get(key: string): unknown }) => (keys: Set<string>) => {
      if (!this.synced()) return firstSeen(keys);
      const now = Date.now();
      for (const key of keys)
        if (map.get(key) !== undefined) asked(key, now);
        else gone(key);
    };
    // A key the doc holds no more (swept, by anyone) is forgotten: a replica that asks for nothing
    // never sweeps, and kept a clock for every key it ever saw.
    const gone = (key: string) => {
      if ([claims, results, programs, errors, asks].every((map) => map.get(key) === undefined)) {
        this.since.delete(key);
        this.askSeen.delete(key);
      }
    };
    this.unobserve = [
      // A claim is written because a replica asks for the key now: while its request runs, the
      // replica that fetches writes no ask record, and its claim must not be swept under it.
      claims.onChange(written(claims)),
      ...[results, programs, errors].map((map) => map.onChange(written(map))),
      asks.onChange((keys) => {
        const now = Date.now();
        for (const key of keys)
          if (asks.get(key) !== undefined) asked(key, now);
          else gone(key);
      }),
      // A heartbeat another replica swept is forgotten here too: only those in the doc are read again.
      beats.onChange((ids) => {
        const now = Date.now();
        for (const id of ids)
          if (beats.get(id)) this.beatSince.set(id, now);
          else this.beatSince.delete(id);
      }),
    ];
  }

  /**
   * Called when this replica asks for a key. The ask record is rewritten only when this replica
   * has not seen it (or the key's result, error or program) change for retention/24 (any
   * replica's write counts), ASK_WRITE_DELAY_MS later (the asks of that time in one transaction),
   * unless another replica's ask or a new result for the key arrives first.
   */
  touch(key: string): void {
    if (this.stopped) return;
    const now = Date.now();
    const last = this.askSeen.get(key) ?? (this.records.asks.get(key) === undefined ? undefined : this.born);
    if (last === undefined || now - last > this.retentionMs / 24 || now < last) {
      this.askTimer ??= unrefTimer(
        setTimeout(() => {
          this.askTimer = undefined;
          this.flushAsks();
        }, ASK_WRITE_DELAY_MS),
      );
      this.due.set(key, now);
      this.askSeen.set(key, now);
    }
    if (now - this.lastSweep >= this.retentionMs / 24) {
      this.lastSweep = now;
      queueMicrotask(() => this.sweep());
    }
  }

  /**
   * When a key that this replica first sees in what was written before (the doc it was made on,
   * the initial sync) was last asked for: the newest time its ask, result, error or program
   * carries where they are all on this device's clock (`own`, see ownClock); `otherwise` where
   * they may be on another device's (one running behind would have its keys swept here). A new tab
   * started every loaded key's clock again: where no tab lived for `retentionMs` (a page reloaded
   * every few hours, a browser closed each evening) nothing was ever swept.
   */
  private dated(key: string, otherwise: number, own: boolean): number {
    const { results, programs, errors, asks } = this.records;
    const last = own ? Math.max(asks.get(key) ?? 0, ...[results, programs, errors].map((m) => m.get(key)?.at ?? 0)) : 0;
    // NaN (a malformed time) compares false: dated by `otherwise`.
    return last > 0 && last < otherwise ? last : otherwise;
  }

  /**
   * Whether every record the doc holds was written on this device's clock: tabs alone sync it (no
   * connector may be the app's own provider), and this browser never synced a doc of their name
   * with other devices. Read once per batch of keys, not per key.
   */
  private ownClock(): boolean {
    const by = connectorsOf(this.records.doc);
    return by.length > 0 && !by.some((c) => c.crossDevice || c.othersWrote?.());
  }

  /** The store is destroyed: write nothing more, not even a sweep already queued. */
  stop(): void {
    this.stopped = true;
    this.due.clear();
    clearTimeout(this.askTimer);
    this.unobserve.forEach((off) => off());
  }

  private flushAsks(): void {
    if (this.stopped || this.due.size === 0) return;
    // A key this replica is fetching now gets its result or error written, which counts as the ask.
    const due = [...this.due].filter(([key]) => !this.fetching(key));
    this.due.clear();
    if (due.length === 0) return;
    this.write(() => {
      for (const [key, at] of due) this.records.asks.set(key, at);
    });
  }

  /**
   * Another replica's request for the key still runs (a hung host stays pending for ever): its
   * claim stands over unrecorded work and its heartbeat, which names it, changed within the window.
   */
  private inFlight(key: string, now: number): boolean {
    const { claims, results, programs, errors } = this.records;
    const claim = claims.get(key);
    if (!claim) return false;
    const recorded = Math.max(results.get(key)?.rev ?? 0, programs.get(key)?.rev ?? 0, errors.get(key)?.rev ?? 0);
    const beat = this.beatSince.get(claim.replicaId);
    // Only a beat that names the claim vouches for it (as for liveness): a forged claim, or one an
    // eviction left behind, under a live replica's id is swept as before.
    const nonces = this.records.beats.get(claim.replicaId)?.nonces;
    const covered = nonces === undefined || nonces.includes(claim.nonce);
    return claim.rev > recorded && covered && beat !== undefined && now - beat <= this.retentionMs;
  }

  sweep(now = Date.now()): string[] {
    // Queued before a destroy(): a destroyed store writes nothing.
    if (this.stopped) return [];
    const { claims, results, programs, errors, asks, beats } = this.records;
    const keys = new Set([...claims.keys(), ...results.keys(), ...programs.keys(), ...errors.keys(), ...asks.keys()]);
    for (const map of [this.since, this.askSeen]) for (const key of map.keys()) if (!keys.has(key)) map.delete(key);
    const expired: string[] = [];
    let own: boolean | undefined;
    for (const key of keys) {
      if (this.isBusy(key)) continue;
      // The age first: the in-flight check reads records and scans a beat's nonces.
      if (
        now - (this.since.get(key) ?? this.dated(key, this.born, (own ??= this.ownClock()))) > this.retentionMs &&
        !this.inFlight(key, now)
      )
        expired.push(key);
    }
    const oldBeats = beats.keys().filter((id) => id !== this.replicaId && now - (this.beatSince.get(id) ?? this.born) > this.retentionMs);
    if (expired.length === 0 && oldBeats.length === 0) return expired;
    this.write(() => {
      for (const key of expired) {
        for (const map of [claims, results, programs, errors, asks]) if (map.get(key) !== undefined) map.delete(key);
        this.since.delete(key);
        this.askSeen.delete(key);
      }
      for (const id of oldBeats) {
        beats.delete(id);
        this.beatSince.delete(id);
      }
    });
    if (expired.length) this.onSwept(expired);
    return expired;
  }
}
