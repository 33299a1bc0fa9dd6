import type * as Y from "yjs";
import type { LaneIndex, Slot } from "./lane-index.ts";
import { deleteElement, isDeletedType } from "./yjs-internals.ts";

// How entries leave the lanes: a record's rewrite deletes its old entries, a cleanup the losers of
// contests and emptied lanes. An entry is found by its Yjs item (client, clock), deleted by position.

/** An entry pushed in the transaction under way: not indexed until it ends, yet a rewrite must see it. */
export type Pushed = { lane: Y.Array<unknown>; client: number; clock: number; seq: number };

/** Deletes every entry of a record (its slot's, and `pending`, pushed this transaction); returns the highest seq seen. */
export function deleteRecord(index: LaneIndex, table: string, key: string, pending: Pushed | undefined): number {
  const slot = index.slot(table, key);
  let seq = 0;
  for (const e of slot ? [...slot.entries] : []) {
    seq = Math.max(seq, e.seq);
    deleteElement(e.lane.array, e.client, e.clock);
  }
  index.forget(slot);
  if (pending) {
    seq = Math.max(seq, pending.seq);
    deleteElement(pending.lane, pending.client, pending.clock);
  }
  return Math.min(seq, Number.MAX_SAFE_INTEGER - 1);
}

/** The origin of cleanup transactions: what one could not resolve, another round would not either. */
export const CLEANUP = "shared-fetch:cleanup";
/** How long a contest waits for its winner's writer to clean it before any replica does. */
export const CLEANUP_FALLBACK_MS = 2_000;

/**
 * Deletes the losers of contested records and this replica's emptied lanes (`own`, but not
 * `current`, the lane it appends to). Every replica sees the same contest; in a `winnerCleans`
 * table only the replica that wrote its winner cleans it at once, since each deleting the same
 * losers sent every other replica one update per contest (K tabs opening at once, each recording
 * its ask of one key, exchanged K² of them). The others clean what is still contested there
 * CLEANUP_FALLBACK_MS later (`later`: the winner's writer may be gone), or when `all`. Claims are
 * cleaned by every replica at once: their election is what decides who fetches, and the sooner
 * every replica shows one claim, the better.
 */
export function cleanContests(
  doc: Y.Doc,
  root: Y.Array<unknown>,
  index: LaneIndex,
  own: Set<Y.Array<unknown>>,
  current: Y.Array<unknown> | undefined,
  winnerCleans: Set<string>,
  all: boolean,
  later: () => void,
): void {
  const contested: Slot[] = [...index.contested];
  const mine = (slot: Slot) => !winnerCleans.has(slot.table) || (slot.winner !== undefined && own.has(slot.winner.lane.array));
  const slots = all ? contested : contested.filter(mine);
  if (slots.length < contested.length) later();
  const empty = [...own].filter((lane) => lane !== current && !isDeletedType(lane) && index.lane(lane)?.ids.size === 0);
  if (slots.length === 0 && empty.length === 0) return;
  doc.transact(() => {
    for (const slot of slots) {
      for (const e of [...slot.entries]) if (e.valid && e !== slot.winner) deleteElement(e.lane.array, e.client, e.clock);
    }
    for (const lane of empty) {
      own.delete(lane);
      const at = root.toArray().indexOf(lane);
      if (at >= 0) root.delete(at, 1);
    }
  }, CLEANUP);
}
