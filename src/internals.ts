/**
 * `shared-fetch/internals`: the storage layout and raw tables, for the devtools panel and tests.
 * Not a stable API: the layout may change in any release. Apps use the main entry.
 */
import { internalsOf as internalsOfStore, type StoreInternals } from "./core/internals.ts";
import { provideDocMirror } from "./worker/doc-mirror.ts";
import { yjsDocMirror } from "./worker/yjs-doc-mirror.ts";

export type { StoreInternals };

/**
 * What the devtools and the tests may reach inside a store. A SharedWorker store's records are a
 * mirror of the worker's doc, made with the Yjs this entry brings: the tab itself loads none.
 */
export function internalsOf(store: object): StoreInternals {
  provideDocMirror(yjsDocMirror);
  return internalsOfStore(store);
}
export { ROOT, TABLES, type DocRecords } from "./core/doc-records.ts";
export type { MalformedRecord, RecordMap } from "./core/lanes.ts";
export type { BeatRecord, ClaimRecord, ErrorRecord, ResultRecord } from "./core/records.ts";
export { PRESENCE_FIELD } from "./core/presence.ts";
export { isPlainObject } from "./core/request.ts";
export { lookAgain, nextExpiry } from "./core/inspector.ts";
export { hashKey } from "./core/key.ts";
export { connectorsOf, onConnector } from "./core/connectors.ts";
export type { DevSimulations } from "./core/dev-simulations.ts";
