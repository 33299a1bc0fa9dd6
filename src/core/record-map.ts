import type { Lanes, Rank } from "./lanes.ts";

/** A typed view of one table of the lanes. */
export class RecordMap<T> {
  constructor(
    private readonly lanes: Lanes,
    readonly name: string,
    private readonly validator: (value: unknown) => T | string,
    rank?: (value: T) => number,
    winnerCleans = false,
    tie?: (value: T) => number,
  ) {
    lanes.table(name, validator, rank as Rank | undefined, winnerCleans, tie as Rank | undefined);
  }

  /** The readers' own check: a writer uses it so that it writes only what every replica reads. */
  validate(value: unknown): T | string {
    return this.validator(value);
  }

  /**
   * keepNewer's record of a key (freshness.ts), read in place of `won` for as long as that is the
   * key's winner: every replica shows it at once, not the older winner until its writer's copy arrives.
   */
  readonly over = new Map<string, [won: T, next: T]>();

  get(key: string): T | undefined {
    const won = this.lanes.get(this.name, key) as T | undefined;
    const over = this.over.get(key);
    if (over && over[0] === won) return over[1];
    // Its winner changed (the writer's copy arrived, or a later revision): the entry is done with.
    if (over) this.over.delete(key);
    return won;
  }

  /** Every valid record of the key, racing ones included (the winner is `get`). */
  contenders(key: string): T[] {
    return this.lanes.contenders(this.name, key) as T[];
  }

  /** Its record stands here only while Yjs holds back a peer's rewrite that deleted it (LaneIndex.remove): other replicas may read none. */
  held(key: string): boolean {
    const index = this.lanes.read();
    const winner = index.slot(this.name, key)?.winner;
    return !!winner && index.kept.has(winner);
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
