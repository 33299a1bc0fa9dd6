import { simulateCrash, simulatePauseNetwork } from "./actions.ts";
import type { SharedFetchStore } from "./core.ts";
import { styles } from "./styles.ts";

/** Development-only failure simulations on the inspected replica. */
export function Simulations({ store, state }: { store: SharedFetchStore; state: { crashed: boolean; networkPaused: boolean } }) {
  return (
    <span style={styles.toolbarInline} role="group" aria-label="Simulations (development only)">
      <button
        type="button"
        style={styles.button}
        disabled={state.crashed}
        title="As a crashed tab: it writes and reads nothing more (no heartbeat, no release, no sync), lets its Web Lock go; other devices see it leave, other tabs see its presence time out after 30 s; its claims stay for others to take over. Reload to recover."
        onClick={() => simulateCrash(store)}
      >
        {state.crashed ? "crashed (reload to recover)" : "crash this replica"}
      </button>
      <button
        type="button"
        style={styles.button}
        aria-pressed={state.networkPaused}
        title="This replica's requests wait until resumed"
        onClick={() => simulatePauseNetwork(store, !state.networkPaused)}
      >
        {state.networkPaused ? "resume network" : "pause network"}
      </button>
    </span>
  );
}
