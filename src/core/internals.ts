import type { DocRecords } from "./doc-records.ts";
import type { ClaimEngine } from "./engine.ts";
import type { DevSimulations } from "./dev-simulations.ts";

/** What the devtools and the tests may reach inside a store: not part of the public API. */
export type StoreInternals = { records: DocRecords; engine: ClaimEngine; dev: DevSimulations };

const internals = new WeakMap<object, StoreInternals>();

export function registerInternals(store: object, parts: StoreInternals): void {
  internals.set(store, parts);
}

/** The doc's raw tables behind a store made by createSharedFetchStore (`shared-fetch/internals`). */
export function internalsOf(store: object): StoreInternals {
  const parts = internals.get(store);
  if (!parts) throw new TypeError("shared-fetch: not a store made by createSharedFetchStore");
  return parts;
}
