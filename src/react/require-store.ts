import { shownValue } from "../core/errors.ts";
import type { SharedFetchStore } from "../core/types.ts";

/**
 * Throws unless `store` looks like a store (it has `ensure`): a store read before it was made, or
 * the arguments swapped, is named here, not later as a request that "is not a request" or a
 * mutation that fails only when it runs.
 */
export function requireStore(fn: string, store: unknown, what = "the first argument"): asserts store is SharedFetchStore {
  if (typeof (store as Partial<SharedFetchStore> | null)?.ensure !== "function")
    throw new TypeError(`${fn}: ${what} must be a shared-fetch store (createSharedFetchStore, connectBrowser), got ${shownValue(store)}`);
}
