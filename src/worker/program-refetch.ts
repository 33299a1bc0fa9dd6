import { internalsOf } from "../core/internals.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import type { Program, ProgramRequest, Snapshot } from "../core/types.ts";

/**
 * A program refetch that a signal withdraws (invariant 11: the resolution is aborted once no
 * waiter is left). The store's refetchProgram takes no signal, so this goes through the engine
 * as the devtools' refetch does: the key's job (its state made by a subscription held for the
 * while), asked for a newer revision with the signal.
 */
export function refetchProgram(store: SharedFetchStoreWithExtras, req: ProgramRequest, signal: AbortSignal): Promise<Snapshot<Program>> {
  const key = store.programKeyOf(req);
  const off = store.subscribeProgram(req, () => {});
  try {
    // Touches the key as a program read (least recently used programs are evicted first).
    store.programSnapshot(req);
    const { engine } = internalsOf(store);
    const job = [...engine.states()].find((s) => s.key === key && s.job)?.job;
    if (!job) return store.refetchProgram(req).finally(off);
    return (engine.ensure(job, signal, "refetch") as Promise<Snapshot<Program>>).finally(off);
  } catch (error) {
    off();
    return Promise.reject(error);
  }
}
