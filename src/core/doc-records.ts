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

export function openDocRecords(doc: Y.Doc, validateProgram: (data: unknown) => string | null): DocRecords {
  const lanes = new Lanes(doc, ROOT);
  return {
    doc,
    lanes,
    claims: new RecordMap(lanes, TABLES.claims, validateClaim, claimRank),
    results: new RecordMap(lanes, TABLES.results, resultValidator(validateJson), byRev),
    programs: new RecordMap(lanes, TABLES.programs, resultValidator(validateProgram), byRev),
    errors: new RecordMap(lanes, TABLES.errors, validateError, byRev),
    beats: new RecordMap(lanes, TABLES.beats, validateBeat, (b) => b.n),
    // Each replica that asks for a key records it at once: K tabs opening together contest it.
    asks: new RecordMap(lanes, TABLES.asks, validateAsk, (at) => at, true),
    malformed: () => [...lanes.malformed()],
    destroy: () => lanes.destroy(),
  };
}
