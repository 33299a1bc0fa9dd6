/**
 * `shared-fetch/internals`: the storage layout and raw tables, for the devtools panel and tests.
 * Not a stable API: the layout may change in any release. Apps use the main entry.
 */
export { internalsOf, type StoreInternals } from "./core/internals.ts";
export { ROOT, TABLES, type DocRecords } from "./core/doc-records.ts";
export type { MalformedRecord, RecordMap } from "./core/lanes.ts";
export type { BeatRecord, ClaimRecord, ErrorRecord, ResultRecord } from "./core/records.ts";
export { PRESENCE_FIELD } from "./core/presence.ts";
export { isPlainObject } from "./core/request.ts";
export type { DevSimulations } from "./core/dev-simulations.ts";
