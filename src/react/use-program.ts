"use client";
// A client module (React Server Components): it calls hooks. sharedProgramOptions, which a
// server component may call, lives in shared-program-options.ts.
import { hashKey as hashQueryKey, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { normalizeProgramRequest } from "../core/program-work.ts";
import type { ProgramRequest } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import type { SharedFetchError } from "./shared-error.ts";
import { programOptionsOf, type ProgramData, type UseProgramOptions } from "./shared-program-options.ts";
import { useObserverActive } from "./observer-active.ts";
import { useHydratable } from "./hydration.ts";
import { useSharedView, withViewProps, type SharedView, type ViewBinding } from "./use-shared-view.ts";
import { absoluteUrl } from "./url.ts";
import { useOwnNullKey } from "./null-key.ts";

/** useQuery(sharedProgramOptions(…)) plus the view across replicas. `null` disables it. */
export function useProgram<TData = ProgramData>(
  url: string | null,
  options?: UseProgramOptions<TData>,
): UseQueryResult<TData, SharedFetchError> & SharedView {
  const store = useSharedFetchStore();
  const own = useOwnNullKey(url === null, options);
  const opts = useHydratable(programOptionsOf<TData>("useProgram", store, url, own), options);
  const query = useQuery(withViewProps(opts));
  const active = useObserverActive(query, opts);
  let req: ProgramRequest | null = null;
  try {
    const compile = options?.compile;
    if (url !== null && active) req = { url: absoluteUrl(url), ...(compile !== undefined ? { compile } : {}) };
    if (req) normalizeProgramRequest(req);
  } catch {
    req = null; // reported as the query's error
  }
  const binding: ViewBinding = {
    id: req ? hashQueryKey(opts.queryKey) : null,
    snapshot: () => store.programSnapshot(req!),
    subscribe: (listener) => store.subscribeProgram(req!, listener),
  };
  return useSharedView(query, opts, binding);
}
