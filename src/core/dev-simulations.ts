import type { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { connectorsOf } from "./connectors.ts";
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
   * no result) and reads nothing more (updates that reach its doc are ignored, so it never sees
   * the takeover), its presence ends as a crashed page's (withdrawn where a sync server carries
   * it, as the server reports a closed socket; in the tabs' awareness it is no longer renewed and
   * times out) and its Web Lock let go (as the browser does for a dead tab), no request of
   * its reaches the network nor any response it, and its claims stay in the doc for the others
   * to take over. Irreversible: reload to get a live replica again.
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

/** Never settles; an abort (the store's destroy) still ends it, so nothing is left waiting for ever. */
function dead(signal: AbortSignal | null | undefined): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal?.aborted) return reject(abortError(signal.reason));
    signal?.addEventListener("abort", () => reject(abortError(signal.reason)), { once: true });
  });
}

export function createDevSimulations(opts: {
  lanes: Lanes;
  dropLock: () => void;
  /** Stops watching presence and ends this replica's as a crash would (see crash). */
  dropPresence: () => void;
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
      opts.dropPresence();
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
    // The gate wraps the store's fetch once; it costs two checks per request while nothing is simulated.
    gate: (fetch) => (input, init) => {
      const signal = init?.signal;
      if (crashed) return dead(signal);
      const sent = paused ? waitForNetwork(signal).then(() => (crashed ? dead(signal) : fetch(input, init))) : fetch(input, init);
      // A dead page's code never runs again: a response that arrives after the crash is never seen.
      return sent.then((response) => (crashed ? dead(signal) : response));
    },
  };
}

/**
 * Ends this replica's presence as a real crash does: a sync server sees the socket close and
 * removes the presence at once; the tabs hear nothing, and each tab's copy times out unrenewed
 * (y-protocols' 30 s check).
 */
export function crashPresence(
  doc: Y.Doc,
  presence: { awareness(): Awareness | undefined; stop(crashed?: boolean): void } | undefined,
): void {
  const awareness = presence?.awareness();
  presence?.stop(true);
  let tabs = false;
  for (const c of connectorsOf(doc)) {
    if (c.crossDevice) continue;
    tabs ||= c.awareness === awareness;
    clearInterval((c.awareness as { _checkInterval?: ReturnType<typeof setInterval> } | undefined)?._checkInterval);
  }
  if (!tabs) awareness?.setLocalState(null);
}
