/** The one seam between the panel and the package's core: everything it uses of src/ comes through here. */
export type {
  ClaimRecord,
  ErrorRecord,
  MalformedRecord,
  ResultRecord,
  SharedFetchStore,
  SharedFetchStoreWithExtras,
  StoreEvent,
} from "../src/index.ts";
import type { SharedFetchStore, SharedFetchStoreWithExtras } from "../src/index.ts";

/** The doc's record tables as the store exposes them (validated: invariant 14). */
export type DocRecords = SharedFetchStoreWithExtras["records"];

export { PRESENCE_FIELD } from "../src/core/presence.ts";
export { isPlainObject } from "../src/core/request.ts";

/**
 * The panel reads the doc through the store's extras. A store typed as the plain contract may
 * still carry them (createSharedFetchStore always does); anything else gets a message saying why.
 */
export function inspectable(store: SharedFetchStore): SharedFetchStoreWithExtras {
  const s = store as Partial<SharedFetchStoreWithExtras> | null;
  if (!s || typeof s.onEvent !== "function" || typeof s.malformed !== "function" || !s.records?.claims) {
    throw new TypeError("shared-fetch devtools: the store has no records/onEvent/malformed; pass the store returned by createSharedFetchStore");
  }
  return s as SharedFetchStoreWithExtras;
}
