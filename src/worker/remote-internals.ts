import type { DevSimulations } from "../core/dev-simulations.ts";
import type { DocRecords } from "../core/doc-records.ts";
import type { ClaimEngine } from "../core/engine.ts";
import { registerInternals } from "../core/internals.ts";
import type { RemoteStore } from "./remote-store.ts";

/**
 * What the devtools reach behind a tab's store in SharedWorker mode: the raw records of a mirror
 * of the worker's doc (made when first read), a refetch of a key this tab shows, and simulations
 * acted out by the worker, whose replica is every tab's (crashing this tab's view alone would crash
 * nothing: the replica is the worker).
 */
export function registerRemoteInternals(store: RemoteStore): void {
  let records: DocRecords | undefined;
  const engine = {
    states: () => store.shownRequests().map(({ key, kind, req }) => ({ key, kind, job: { key, kind, req } })),
    ensure: (job: { kind: string; req: unknown }) =>
      job.kind === "program" ? store.refetchProgram(job.req as never) : store.refetch(job.req as never),
    // Read by the actions' destroyed check: without it a destroyed tab's actions reported success.
    get stage() {
      return store.stage;
    },
  };
  const dev: DevSimulations = {
    crash: () => store.simulate({ action: "crash" }),
    get crashed() {
      return store.devState().crashed;
    },
    pauseNetwork: (on) => store.simulate({ action: "pauseNetwork", on }),
    get networkPaused() {
      return store.devState().networkPaused;
    },
    stopHeartbeats: (on) => store.simulate({ action: "stopHeartbeats", on }),
    get heartbeatsStopped() {
      return store.devState().heartbeatsStopped;
    },
  };
  registerInternals(store, {
    get records() {
      return (records ??= store.mirrorRecords());
    },
    engine: engine as unknown as ClaimEngine,
    dev,
  });
}
