import type * as Y from "yjs";

// The lanes' entries and how racing ones are ordered (LaneIndex keeps them).

/** A record read from the doc that failed validation: ignored, kept for devtools. */
export type MalformedRecord = { map: string; key?: string; reason: string; value: unknown };
export type Validator = (value: unknown) => unknown;
/** Orders racing records of one table before seq does, e.g. a higher revision always wins. */
export type Rank = (value: unknown) => number;

/** One lane: a nested Y.Array of the root, written by one replica. */
export type Lane = { array: Y.Array<unknown>; creator: number; ids: Set<string> };
/** One element of a lane, by its Yjs id (`client:clock`), which never changes. */
export type Entry = {
  id: string;
  client: number;
  clock: number;
  lane: Lane;
  table: string;
  key: string;
  seq: number;
  valid?: { value: unknown; rank: number; tie: number };
};
/**
 * Every entry of one (table, key) in any lane, and the one that counts. An array: a slot holds one
 * entry but while writes race, and a Map per slot cost every key of the doc its hash table.
 */
export type Slot = { table: string; key: string; entries: Entry[]; winner?: Entry };

/** `ties`: what orders records of one rank before seq does (a table's second Rank). */
export type Tables = { validators: Map<string, Validator>; ranks: Map<string, Rank>; ties: Map<string, Rank> };

/** Every replica picks the same winner: rank, then tie, then seq, then the lane creator's clientID. */
export function beats(a: Entry, b: Entry): boolean {
  if (a.valid!.rank !== b.valid!.rank) return a.valid!.rank > b.valid!.rank;
  if (a.valid!.tie !== b.valid!.tie) return a.valid!.tie > b.valid!.tie;
  if (a.seq !== b.seq) return a.seq > b.seq;
  return a.lane.creator > b.lane.creator;
}

/** Adds (table, key) to what a transaction changed, for the listeners. */
export function note(changed: Map<string, Set<string>> | undefined, table: string, key: string): void {
  if (changed) (changed.get(table) ?? changed.set(table, new Set()).get(table)!).add(key);
}
