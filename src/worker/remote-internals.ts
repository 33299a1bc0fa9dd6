import type { DevSimulations } from "../core/dev-simulations.ts";
import { openDocRecords, type DocRecords } from "../core/doc-records.ts";
import type { ClaimEngine } from "../core/engine.ts";
import { registerInternals } from "../core/internals.ts";
import { validateProgramData } from "../core/program-work.ts";
import type { RemoteStore } from "./remote-store.ts";

/**
 * What the devtools reach behind a tab's store in SharedWorker mode: the raw records of a mirror
 * of the worker's doc (made when first read), a refetch of a key this tab shows, and simulations
 * that do nothing here: crashing this tab's view would not crash the replica, which is the worker.
 */
export function registerRemoteInternals(store: RemoteStore): void {
  let records: DocRecords | undefined;
  const engine = {
    states: () => store.shownRequests().map(({ key, kind, req }) => ({ key, kind, job: { key, kind, req } })),
    ensure: (job: { kind: string; req: unknown }) =>
      job.kind === "program" ? store.refetchProgram(job.req as never) : store.refetch(job.req as never),
  };
  const dev: DevSimulations = {
    crash() {},
    crashed: false,
    pauseNetwork() {},
    networkPaused: false,
    stopHeartbeats() {},
    heartbeatsStopped: false,
  };
  registerInternals(store, {
    get records() {
      return (records ??= openDocRecords(store.mirrorDoc(), validateProgramData));
    },
    engine: engine as unknown as ClaimEngine,
    dev,
  });
}
