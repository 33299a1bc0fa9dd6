import type { TabMessage } from "./protocol.ts";
import type { SharedWorkerLike } from "./worker-start.ts";

/**
 * The next generation's worker, started in advance (see WorkerLink's `standby`); `stopWatch` once
 * it said it stands and its lock is watched.
 */
export type Standby = { generation: number; worker: SharedWorkerLike; stopWatch?: () => void };

/** Stops watching a standby and closes this tab's port to it; `bye` withdraws what the tab asked it in advance. */
export function letGo(standby: Standby, bye: boolean): void {
  standby.stopWatch?.();
  if (bye) standby.worker.port.postMessage({ t: "bye" } satisfies TabMessage);
  standby.worker.port.close();
}
