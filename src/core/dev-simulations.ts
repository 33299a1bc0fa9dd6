import type { Lanes } from "./lanes.ts";
import { TABLES } from "./doc-records.ts";
import { abortError } from "./errors.ts";

/**
 * Development-only failure simulations for the devtools panel (reached through
 * `shared-fetch/internals`, never the main entry). They act on this replica alone.
 */
export type DevSimulations = {
  /**
   * This replica stops as if its page crashed: it writes nothing more (no heartbeat, no release,
   * no result), its Web Lock is let go as the browser does for a dead tab, and its claims stay in
   * the doc for the others to take over. Irreversible: reload to get a live replica again.
   */
  crash(): void;
  readonly crashed: boolean;
  /** While paused, this replica's requests wait before reaching the network (like an offline mode). */
  pauseNetwork(paused: boolean): void;
  readonly networkPaused: boolean;
  /**
   * While stopped, this replica writes no heartbeat (invariant 10 switched off, as the seed's
   * claims were never refreshed): its claims then age with its requests, and after one lease of
   * silence another replica takes a healthy claim over. Everything else (claims, results,
   * releases) is written as usual.
   */
  stopHeartbeats(stopped: boolean): void;
  readonly heartbeatsStopped: boolean;
};

export function createDevSimulations(opts: {
  lanes: Lanes;
  dropLock: () => void;
  changed: () => void;
}): DevSimulations & { gate: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch } {
  let crashed = false;
  let paused = false;
  let beatsStopped = false;
  let resume: (() => void) | undefined;
  let resumed = Promise.resolve();
  const waitForNetwork = (signal: AbortSignal | null | undefined): Promise<void> => {
    if (!paused) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(abortError(signal?.reason));
      signal?.addEventListener("abort", onAbort, { once: true });
      void resumed.then(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  };
  return {
    crash() {
      if (crashed) return;
      crashed = true;
      opts.lanes.freeze();
      opts.dropLock();
      opts.changed();
    },
    get crashed() {
      return crashed;
    },
    pauseNetwork(next: boolean) {
      if (next === paused) return;
      paused = next;
      if (paused) resumed = new Promise<void>((resolve) => (resume = resolve));
      else resume?.();
      opts.changed();
    },
    get networkPaused() {
      return paused;
    },
    stopHeartbeats(stopped: boolean) {
      if (stopped === beatsStopped) return;
      beatsStopped = stopped;
      opts.lanes.mute(TABLES.beats, stopped);
      opts.changed();
    },
    get heartbeatsStopped() {
      return beatsStopped;
    },
    // The gate wraps the store's fetch once; it costs one check per request while not paused.
    gate: (fetch) => (input, init) => (paused ? waitForNetwork(init?.signal).then(() => fetch(input, init)) : fetch(input, init)),
  };
}
