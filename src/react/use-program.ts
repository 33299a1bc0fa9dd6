import { useMemo } from "react";
import { messageOf } from "../core/fetcher.ts";
import { parseHttpUrl } from "../core/request.ts";
import type { Program } from "../core/types.ts";
import { useSharedFetchStore } from "./provider.tsx";
import { useStoreQuery, type SharedQueryResult } from "./use-store-query.ts";

export type UseProgramOptions = { enabled?: boolean };

/** A program (entry module and its imports) resolved once across replicas. `null` disables it. */
export function useProgram(url: string | null, opts?: UseProgramOptions): SharedQueryResult<Program> {
  const store = useSharedFetchStore();
  let id: string | null = null;
  let inputError: string | undefined;
  if (url !== null && opts?.enabled !== false) {
    try {
      id = parseHttpUrl(url, "program url").href;
    } catch (error) {
      inputError = messageOf(error);
    }
  }
  const req = useMemo(() => (id === null ? null : { url: id }), [id]);
  return useStoreQuery<Program>(`program:${store.replicaId}`, {
    id,
    inputError,
    ensure: (signal) => store.ensureProgram(req!, { signal }),
    snapshot: () => store.programSnapshot(req!),
    subscribe: (listener) => store.subscribeProgram(req!, listener),
    refetch: () => store.ensureProgram(req!),
  });
}
