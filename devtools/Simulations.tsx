import { simulateCrash, simulatePauseNetwork } from "./actions.ts";
import type { SharedFetchStore } from "./core.ts";
import { styles } from "./styles.ts";

/** Development-only failure simulations on the inspected replica (in a SharedWorker tab, the worker's: every tab's). */
export function Simulations({
  store,
  state,
  worker,
}: {
  store: SharedFetchStore;
  state: { crashed: boolean; networkPaused: boolean };
  worker?: true | undefined;
}) {
  return (
    <span style={styles.toolbarInline} role="group" aria-label="Simulations (development only)">
      <button
        type="button"
        style={styles.button}
        disabled={state.crashed}
        title={
          worker
            ? "As if its renderer died: its locks go, the next worker takes its claims over."
            : "As a crashed tab: it writes and reads nothing more (no heartbeat, no release, no sync), lets its Web Lock go; other devices see it leave, other tabs see its presence time out after 30 s; its claims stay for others to take over. Reload to recover."
        }
        onClick={() => simulateCrash(store)}
      >
        {state.crashed
          ? `crashed (${worker ? "the next worker takes over" : "reload to recover"})`
          : `crash ${worker ? "the SharedWorker" : "this replica"}`}
      </button>
      <button
        type="button"
        style={styles.button}
        aria-pressed={state.networkPaused}
        title={`${worker ? "The SharedWorker's (every tab's)" : "This replica's"} requests wait until resumed`}
        onClick={() => simulatePauseNetwork(store, !state.networkPaused)}
      >
        {state.networkPaused ? "resume network" : "pause network"}
      </button>
    </span>
  );
}
