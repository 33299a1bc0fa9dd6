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

  get(key: string): T | undefined {
    return this.lanes.get(this.name, key) as T | undefined;
  }

  /** Every valid record of the key, racing ones included (the winner is `get`). */
  contenders(key: string): T[] {
    return this.lanes.contenders(this.name, key) as T[];
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
