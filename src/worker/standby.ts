import { watchLock } from "./port.ts";
import { parseWorkerMessage } from "./parse-worker-message.ts";
import { PROTOCOL, STANDBY_LOCK_PREFIX, type TabMessage } from "./protocol.ts";
import { workerName } from "./worker-generations.ts";
import { spawn, type SharedWorkerLike, type WorkerLinkOptions } from "./worker-start.ts";

/**
 * The next generation's worker, started in advance (see LinkStandby's `standby`); `stopWatch` once
 * its lock is watched (a no-op once let go).
 */
export type Standby = { generation: number; worker: SharedWorkerLike; stopWatch?: () => void };

/**
 * Watches the standby's lock (`gone`: it died, or the watch was refused: then with no `stopWatch`)
 * until let go: the lock its `standing` names, or at once the one of its generation if held
 * already. A standby another tab started lives in that tab's renderer, which may crash before the
 * answer to this tab's `standby` comes.
 */
export function watchStandby(standby: Standby, { locks, config }: Pick<WorkerLinkOptions, "locks" | "config">, gone: () => void): void {
  const watch = (lock: string) => {
    // Refused, it is not watched (a tab would turn to it at a takeover, blind to its death): the
    // tab then starts a fresh worker of its generation, as where there is no standby, and so does
    // a tab that turned to it before the refusal came.
    standby.stopWatch ??= watchLock(locks, lock, gone, () => ((standby.stopWatch = undefined), gone()));
  };
  standby.worker.port.addEventListener("message", (event: MessageEvent) => {
    const msg = parseWorkerMessage(event.data);
    if (msg?.t === "standing") watch(msg.lock);
  });
  const lock = STANDBY_LOCK_PREFIX + workerName(config.name, standby.generation);
  void locks.query?.().then(
    // Exclusive: the standby's own hold, not a watcher's (this tab's own, granted at a death).
    ({ held = [] }) => held.some((l) => l.name === lock && l.mode === "exclusive") && watch(lock),
    () => {},
  );
}

/**
 * Starts the next generation's worker for the live one of `generation` (its lock `lock`, its
 * replica `replica`), watched until let go (`gone`: it died), and sends it this tab's asks.
 */
export function startStandby(
  o: WorkerLinkOptions,
  generation: number,
  lock: string,
  replica: string,
  tabLock: string,
  gone: (worker: SharedWorkerLike) => void,
): Standby | undefined {
  const next = spawn(o, generation + 1);
  if (!next) return undefined;
  next.port.start?.();
  const entry: Standby = { generation: generation + 1, worker: next };
  watchStandby(entry, o, () => gone(next));
  // Its lock (held since the hello) lets the standby drop this tab's asks when it dies.
  const standby: TabMessage = { t: "standby", v: PROTOCOL, config: o.config, watch: lock, lock: tabLock, replica };
  next.port.postMessage(standby);
  o.store.shadow((m) => next.port.postMessage(m));
  return entry;
}

/** Stops watching a standby and closes this tab's port to it; `bye` withdraws what the tab asked it in advance. */
export function letGo(standby: Standby, bye: boolean): void {
  standby.stopWatch?.();
  // An answer that comes later watches nothing.
  standby.stopWatch = () => {};
  if (bye) standby.worker.port.postMessage({ t: "bye" } satisfies TabMessage);
  standby.worker.port.close();
}
