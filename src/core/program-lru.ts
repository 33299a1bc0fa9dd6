import type { DocRecords } from "./doc-records.ts";
import { recordedRev } from "./snapshot.ts";
import { utf8Length } from "./utf8.ts";

export type ProgramLruOptions = {
  records: DocRecords;
  /** Stored programs (result or error records) this replica used, at most. */
  maxPrograms: number;
  /** Their total size in UTF-8 bytes (file names, contents, compiled output), at most. */
  maxBytes: number;
  /** True while this replica has waiters, listeners or work for the key: never evicted. */
  isBusy: (key: string) => boolean;
  write: (fn: () => void) => void;
  onEvicted?: (keys: string[]) => void;
};

/**
 * Bounds the programs stored in the doc by count and bytes, least recently used evicted first.
 *
 * "Used" means asked for through ensureProgram/programSnapshot/refetchProgram by *this* replica;
 * the order lives in memory, per replica. A replica only ever evicts programs it used itself (a
 * program another replica put there and this one never asked for is none of its business), never
 * one this replica is busy with (waiters, listeners, work), and never one on which a claim for
 * newer work stands (someone is refetching it: its data is shown meanwhile). An evicted key is
 * forgotten, so a program revived by another replica is not evicted again by this one until this
 * replica asks for it again (no ping-pong).
 *
 * Eviction runs in a deferred microtask after a program outcome is written (never inside a Yjs
 * observer), and whenever this replica lets go of a key.
 */
export class ProgramLru {
  /** Keys in least-recently-used-first order (a Set keeps insertion order; touch re-inserts). */
  private readonly order = new Set<string>();
  private readonly sizes = new WeakMap<object, number>();
  private queued = false;
  private stopped = false;
  private readonly unobserve: (() => void)[];

  constructor(private readonly opts: ProgramLruOptions) {
    const onKeys = (keys: Set<string>) => {
      // Inside the writer's transaction: only note that a check is due.
      for (const key of keys) {
        if (this.order.has(key)) {
          this.schedule();
          return;
        }
      }
    };
    this.unobserve = [opts.records.programs.onChange(onKeys), opts.records.errors.onChange(onKeys)];
  }

  /** Marks `key` as used now by this replica. */
  touch(key: string): void {
    this.order.delete(key);
    this.order.add(key);
  }

  schedule(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.evict();
    });
  }

  /** Removes least recently used programs until the bounds hold; returns the evicted keys. */
  evict(): string[] {
    if (this.stopped) return [];
    const { records, isBusy, maxPrograms, maxBytes } = this.opts;
    const stored: { key: string; bytes: number }[] = [];
    let count = 0;
    let bytes = 0;
    for (const key of this.order) {
      const result = records.programs.get(key);
      const error = records.errors.get(key);
      if (result === undefined && error === undefined) {
        // Nothing stored (never resolved, aborted, or removed elsewhere): forget it once idle here.
        if (!isBusy(key)) this.order.delete(key);
        continue;
      }
      const size = this.sizeOf(result?.data) + (error ? utf8Length(error.message) : 0);
      stored.push({ key, bytes: size });
      count++;
      bytes += size;
    }
    const evicted: string[] = [];
    for (const { key, bytes: size } of stored) {
      if (count <= maxPrograms && bytes <= maxBytes) break;
      if (isBusy(key) || this.beingRefetched(key)) continue;
      evicted.push(key);
      count--;
      bytes -= size;
    }
    if (evicted.length === 0) return evicted;
    this.opts.write(() => {
      for (const key of evicted) {
        if (records.programs.get(key) !== undefined) records.programs.delete(key);
        if (records.errors.get(key) !== undefined) records.errors.delete(key);
      }
    });
    for (const key of evicted) this.order.delete(key);
    this.opts.onEvicted?.(evicted);
    return evicted;
  }

  stop(): void {
    this.stopped = true;
    this.unobserve.forEach((off) => off());
  }

  /** Approximate stored size of a program payload, in UTF-8 bytes (computed once per payload). */
  sizeOf(data: unknown): number {
    if (typeof data !== "object" || data === null) return 0;
    let size = this.sizes.get(data);
    if (size === undefined) {
      size = programBytes(data as ProgramLike);
      this.sizes.set(data, size);
    }
    return size;
  }

  private beingRefetched(key: string): boolean {
    const { records } = this.opts;
    const claim = records.claims.get(key);
    return claim !== undefined && claim.rev > recordedRev(records.programs.get(key), records.errors.get(key));
  }
}

type ProgramLike = { main?: unknown; files?: unknown; externals?: unknown; compiled?: unknown };

/** Payloads come validated from the doc; still, count only what is there and is a string. */
export function programBytes(program: ProgramLike): number {
  let n = 0;
  const add = (s: unknown) => {
    if (typeof s === "string") n += utf8Length(s);
  };
  add(program.main);
  if (Array.isArray(program.files)) {
    for (const f of program.files as { name?: unknown; contents?: unknown }[]) {
      add(f?.name);
      add(f?.contents);
    }
  }
  if (Array.isArray(program.externals)) program.externals.forEach(add);
  if (typeof program.compiled === "object" && program.compiled !== null) {
    for (const [name, code] of Object.entries(program.compiled)) {
      add(name);
      add(code);
    }
  }
  return n;
}
