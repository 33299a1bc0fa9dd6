import type { PortLike } from "./port.ts";
import { WORKER_PROBE_MS, WORKER_READY_MS } from "./worker-bounds.ts";
import { failedKey, workerLocks } from "./worker-generations.ts";
import { readStored } from "../core/local-storage.ts";
import { errorText, spawn, type SharedWorkerLike, type WorkerLinkOptions } from "./worker-start.ts";

/**
 * A tab's wait, from its hello on `port` (the tab holding `tabLock`) to the `ready` of the worker of `generation`: the answer
 * bound, the probe, and (`watch`: unless a standby turned to is watched already) the generation's
 * lock watched before `ready` names it, by `watchWorker` (a refusal fails the tab, as for the lock
 * `ready` names). `fail`: the tab gives up on workers, saying why (`load`: the script failed to
 * load). Returns the end of the wait: the worker answered, failed or is left (the tab hid,
 * stopped, or turned to another worker).
 */
export function answerWait(
  o: WorkerLinkOptions,
  port: PortLike,
  tabLock: string,
  generation: number,
  watch: boolean,
  fail: (reason: string, load?: boolean) => void,
  watchWorker: (lock: string) => () => void,
): () => void {
  let ended = false;
  /** The worker started again to learn whether its script loads (see WORKER_PROBE_MS). */
  let probe: SharedWorkerLike | undefined;
  let stopWatch: (() => void) | undefined;

  /**
   * `ready` names the worker's lock, but a worker may die before it answers (its host tab
   * crashed as this one opened): if the generation's worker holds its lock now, its release is
   * that death, heard at once instead of at the answer bound. A worker that holds none yet (still
   * loading) cannot be told from a dead one here: the probe looks again. `atProbe`: that look, at
   * which a worker of that name still waiting for the lock held by another is another build's,
   * and one that another tab heard fail to load, and that neither read the hello nor holds a
   * lock, is broken.
   */
  const watchBeforeReady = async (atProbe?: SharedWorkerLike): Promise<void> => {
    const { lock, heard, behind } = await workerLocks(o.locks, o.config.name, generation, tabLock);
    if (ended) return;
    if (atProbe && probe === atProbe) {
      // The tab's script is of a new deploy (or an old one) at another URL: its worker waits for
      // the lock of the other build's, held for as long as that build's tabs live. A crashed
      // holder's lock is let go within tens of ms, well before the probe.
      if (behind) return fail("another SharedWorker of this name (another build's script, at another URL) serves this browser's tabs");
      // Nothing read the hello, no worker of the generation holds its lock, and its script failed
      // to load in a tab connected as it failed (see failedKey): the browser fired its `error` at
      // that tab only, and the worker, alive but broken, answers neither this tab nor its probe.
      if (!heard && !lock && readStored(failedKey(o.config.name, generation)))
        return fail("the SharedWorker failed to load (told to another tab)");
    }
    if (lock && !stopWatch) stopWatch = watchWorker(lock);
  };

  const startProbe = (): void => {
    if (ended || probe) return;
    const started = spawn(o, generation);
    if (!started) return;
    probe = started;
    started.addEventListener?.("error", (event) => {
      if (probe === started) fail(errorText(event), true);
    });
    // A worker that took its lock since the hello is watched from now on.
    if (watch) void watchBeforeReady(started);
  };

  const ms = o.timeoutMs ?? WORKER_READY_MS;
  const readyTimer = ms !== Infinity ? setTimeout(() => fail(`the SharedWorker did not answer within ${ms} ms`), ms) : undefined;
  const probeTimer = WORKER_PROBE_MS < ms ? setTimeout(startProbe, WORKER_PROBE_MS) : undefined;
  if (watch) void watchBeforeReady();

  return () => {
    ended = true;
    clearTimeout(readyTimer);
    clearTimeout(probeTimer);
    stopWatch?.();
    // A factory may hand the same worker back (tests do); its port is then the tab's own.
    if (probe && probe.port !== port) probe.port.close();
    probe = undefined;
  };
}
