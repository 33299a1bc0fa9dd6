import { useMemo } from "react";
import { messageOf } from "../core/fetcher.ts";
import { normalizeProgramRequest } from "../core/program-work.ts";
import type { SharedFetchStoreExtras } from "../core/store.ts";
import type { Program, ProgramRequest, SharedFetchStore, Snapshot } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import { useStoreQuery, type SharedQueryResult } from "./use-store-query.ts";

export type UseProgramOptions = {
  /** false disables it like passing null. */
  enabled?: boolean;
  /** Also return JavaScript for each TS/JSX file as `data.compiled` (file name → code). */
  compile?: boolean;
};

/** A resolved program; `compiled` is present when it was asked for with `compile: true`. */
export type ProgramData = Program & { compiled?: Record<string, string> };

function identify(store: SharedFetchStore, req: ProgramRequest): string {
  const programKeyOf = (store as Partial<SharedFetchStoreExtras>).programKeyOf;
  if (programKeyOf) return programKeyOf.call(store, req);
  const { url, compile } = normalizeProgramRequest(req);
  return JSON.stringify([url, compile]);
}

/** A program (entry module and its imports) resolved once across replicas. `null` disables it. */
export function useProgram(url: string | null, opts?: UseProgramOptions): SharedQueryResult<ProgramData> {
  const store = useSharedFetchStore();
  const compile = opts?.compile === true;
  let id: string | null = null;
  let inputError: string | undefined;
  if (url !== null && opts?.enabled !== false) {
    try {
      id = identify(store, compile ? { url, compile } : { url });
    } catch (error) {
      inputError = messageOf(error);
    }
  }
  const req = useMemo<ProgramRequest | null>(() => (id === null ? null : compile ? { url: url!, compile } : { url: url! }), [id]); // eslint-disable-line react-hooks/exhaustive-deps
  const refetchProgram = (store as Partial<SharedFetchStoreExtras>).refetchProgram;
  return useStoreQuery<ProgramData>(`program:${store.replicaId}`, {
    id,
    inputError,
    ensure: (signal) => store.ensureProgram(req!, { signal }),
    snapshot: () => store.programSnapshot(req!),
    subscribe: (listener) => store.subscribeProgram(req!, listener),
    // A real re-resolution (a new revision), not a look-up of what is recorded.
    refetch: () => (refetchProgram ? refetchProgram.call(store, req!) : store.ensureProgram(req!)) as Promise<Snapshot<ProgramData>>,
  });
}
