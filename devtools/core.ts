/** The one seam between the panel and the package's core: everything it uses of src/ comes through here. */
export type { SharedFetchStore, SharedFetchStoreWithExtras, StoreEvent } from "../src/index.ts";
export type { Inspection, InspectedClaim, InspectedKey, InspectedReplica, InspectedSettle, SettleWhy, StaleReason } from "../src/index.ts";
export type { DevSimulations } from "../src/internals.ts";
export type { ClaimRecord, DocRecords, ErrorRecord, MalformedRecord, ResultRecord } from "../src/internals.ts";
import type { SharedFetchStore, SharedFetchStoreWithExtras } from "../src/index.ts";
import { internalsOf, type DocRecords, type StoreInternals } from "../src/internals.ts";

export { connectorsOf, hashKey, isPlainObject, lookAgain, onConnector, PRESENCE_FIELD } from "../src/internals.ts";

/**
 * The panel reads the store's inspector and events. A store typed as the plain contract may
 * still carry them (createSharedFetchStore always does); anything else gets a message saying why.
 */
export function inspectable(store: SharedFetchStore): {
  store: SharedFetchStoreWithExtras;
  records: DocRecords;
  internals: StoreInternals;
} {
  const s = store as Partial<SharedFetchStoreWithExtras> | null;
  if (!s || typeof s.onEvent !== "function" || typeof s.inspect !== "function" || typeof s.onInspect !== "function") {
    throw new TypeError(
      "shared-fetch devtools: the store has no inspect/onInspect/onEvent; pass the store returned by createSharedFetchStore",
    );
  }
  const internals = internalsOf(s);
  return { store: s as SharedFetchStoreWithExtras, records: internals.records, internals };
}
