import type * as Y from "yjs";
import { Lanes, RecordMap, type MalformedRecord } from "./lanes.ts";
import {
  claimRank,
  resultValidator,
  validateAsk,
  validateBeat,
  validateClaim,
  validateError,
  validateJson,
  type BeatRecord,
  type ClaimRecord,
  type ErrorRecord,
  type ResultRecord,
} from "./records.ts";

/** The one root type of the shared doc (a Y.Array of lanes). One doc per trust boundary (invariant 13). */
export const ROOT = "shared-fetch:lanes";

/** Table names of the records kept in the lanes. */
export const TABLES = {
  claims: "claims",
  results: "results",
  programs: "programs",
  errors: "errors",
  beats: "beats",
  asks: "asks",
} as const;

export type DocRecords = {
  doc: Y.Doc;
  lanes: Lanes;
  claims: RecordMap<ClaimRecord>;
  /** Fetch results and program results live apart: their payloads are validated differently. */
  results: RecordMap<ResultRecord>;
  programs: RecordMap<ResultRecord>;
  errors: RecordMap<ErrorRecord>;
  /** Per replica, not per claim (invariant 10). */
  beats: RecordMap<BeatRecord & { at?: number }>;
  /** Key → the asker's wall-clock time; used only for retention, never for staleness. */
  asks: RecordMap<number>;
  malformed(): MalformedRecord[];
  destroy(): void;
};

const byRev = (record: { rev: number }) => record.rev;
/**
 * Within one revision the later request's outcome wins. Two outcomes of one revision race only
 * when their writers did not see each other's: a partition (both answers to the same inputs), or a
 * doc that numbered revisions before reading its database (an IndexedDB that answered after the
 * wait), where the other is the past visit's. `at` is part of the record, so every replica orders
 * the same set alike; it is a wall time, compared only between records, never with this clock.
 * Records without it (older versions) lose to those with it.
 */
const byAt = (record: { at?: number }) => record.at ?? -Infinity;

export function openDocRecords(doc: Y.Doc, validateProgram: (data: unknown) => string | null): DocRecords {
  const lanes = new Lanes(doc, ROOT);
  return {
    doc,
    lanes,
    claims: new RecordMap(lanes, TABLES.claims, validateClaim, claimRank),
    results: new RecordMap(lanes, TABLES.results, resultValidator(validateJson), byRev, false, byAt),
    programs: new RecordMap(lanes, TABLES.programs, resultValidator(validateProgram), byRev, false, byAt),
    errors: new RecordMap(lanes, TABLES.errors, validateError, byRev, false, byAt),
    beats: new RecordMap(lanes, TABLES.beats, validateBeat, (b) => b.n),
    // Each replica that asks for a key records it at once: K tabs opening together contest it.
    asks: new RecordMap(lanes, TABLES.asks, validateAsk, (at) => at, true),
    // The lanes' own records, handed out (store.malformed(), inspect()): a caller cannot change what the panel lists.
    malformed: () => lanes.malformed().map((m) => Object.freeze(m)),
    destroy: () => lanes.destroy(),
  };
}

/**
 * Every change of the doc is something the inspector may show: a record, or garbage that touches
 * none (a root item that is no lane, a shapeless entry), listed as malformed (invariant 14). A
 * transaction that changed nothing is not: a sync server's echo of our own write, a fence's or
 * probe's answer; each would cost an open panel a whole inspection.
 */
export function watchDoc(records: DocRecords, changed: () => void): () => void {
  const onTransaction = (tr: Y.Transaction) => tr.changed.size > 0 && changed();
  records.doc.on("afterTransaction", onTransaction);
  return () => records.doc.off("afterTransaction", onTransaction);
}
