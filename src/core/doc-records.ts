import type * as Y from "yjs";
import { RecordMap, type MalformedRecord } from "./record-map.ts";
import {
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

/** Root type names in the shared doc. One doc per trust boundary (invariant 13). */
export const ROOTS = {
  claims: "shared-fetch:claims",
  results: "shared-fetch:results",
  programs: "shared-fetch:programs",
  errors: "shared-fetch:errors",
  beats: "shared-fetch:beats",
  asks: "shared-fetch:asks",
} as const;

export type DocRecords = {
  doc: Y.Doc;
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

export function openDocRecords(doc: Y.Doc, validateProgram: (data: unknown) => string | null): DocRecords {
  const open = <T>(name: string, validate: (v: unknown) => T | string) => new RecordMap<T>(doc.getArray<unknown>(name), name, validate);
  const maps = {
    claims: open(ROOTS.claims, validateClaim),
    results: open(ROOTS.results, resultValidator(validateJson)),
    programs: open(ROOTS.programs, resultValidator(validateProgram)),
    errors: open(ROOTS.errors, validateError),
    beats: open(ROOTS.beats, validateBeat),
    asks: open(ROOTS.asks, validateAsk),
  };
  const all = Object.values(maps) as RecordMap<unknown>[];
  return {
    doc,
    ...maps,
    malformed: () => all.flatMap((m) => [...m.malformed()]),
    destroy: () => all.forEach((m) => m.destroy()),
  };
}
