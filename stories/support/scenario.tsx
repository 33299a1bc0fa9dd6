import { useEffect, useSyncExternalStore, type CSSProperties, type ReactNode } from "react";
import type { SharedRequest, UseSharedFetchOptions } from "../../src/index.ts";
import type { HostState } from "../../sim/host.ts";
import { hostSummary, type Narration } from "./narration.ts";
import { HostCounter, ReplicaPanes } from "./panes.tsx";
import { shortOf, type Replicas, type WorldState } from "./replicas.ts";

const styles = {
  // Beside each other 3 : 2 where both fit (the grid's 3fr / 2fr at 1280 px); on a phone the timeline
  // goes under the panes. A grid kept it beside them: its 16rem left the panes a 75 px column at
  // 380 px, which they overflowed onto the timeline.
  layout: { display: "flex", flexWrap: "wrap", gap: "1rem", alignItems: "flex-start" },
  main: { flex: "3 1 24rem", minWidth: 0 },
  side: { flex: "2 1 16rem", minWidth: 0 },
  timeline: {
    fontFamily: "system-ui, sans-serif",
    fontSize: 13,
    border: "1px solid #c8cdd3",
    borderRadius: 8,
    padding: "0.5rem 0.75rem",
    margin: 0,
  },
  list: { listStyle: "none", padding: 0, margin: 0, display: "grid", gap: 2 },
  // A wrapped line goes on under its text, not under the time: the times stay a column to scan.
  entry: { display: "flex" },
  at: { color: "#5a6470", fontVariantNumeric: "tabular-nums", marginRight: 6, flex: "none" },
  // A line may quote a query key or a URL, one long word: it wraps rather than run out of the box.
  text: { minWidth: 0, overflowWrap: "anywhere" },
  verdict: { margin: "0.5rem 0 0", padding: "0.4rem 0.5rem", background: "#e7f5ea", borderRadius: 4, fontWeight: 600 },
  controls: {
    fontFamily: "system-ui, sans-serif",
    fontSize: 14,
    display: "flex",
    gap: 8,
    flexWrap: "wrap",
    alignItems: "center",
    margin: "0 0 1rem",
  },
} satisfies Record<string, CSSProperties>;

/** A scenario's row: its main column (`main`) and, beside it or under it on a phone, the timeline. */
export const frameLayout = { layout: styles.layout, main: styles.main };

/** The timeline (data-testid "narration", one `li` per entry) and the verdict once there is one. */
export function NarrationView({ narration }: { narration: Narration }) {
  const { entries, verdict, startedAt } = useSyncExternalStore(narration.subscribe, narration.getSnapshot, narration.getSnapshot);
  return (
    <aside style={{ ...styles.timeline, ...styles.side }} aria-label="What happened">
      <h2 style={{ fontSize: 15, margin: "0 0 0.4rem" }}>What happened</h2>
      <ol style={styles.list} data-testid="narration">
        {entries.map((e, i) => (
          <li key={i} data-replica={e.replica} style={styles.entry}>
            <span style={styles.at}>+{((e.at - startedAt) / 1000).toFixed(2)} s</span>
            <span style={styles.text}>{e.text}</span>
          </li>
        ))}
      </ol>
      {verdict !== undefined && (
        <p style={styles.verdict} data-testid="verdict">
          {verdict}
        </p>
      )}
    </aside>
  );
}

/** Everything a verdict may look at once something changed. */
export type VerdictContext = { world: Replicas; state: WorldState; host: HostState; summary: string };

type FrameProps = {
  world: Replicas;
  request: string | SharedRequest | null | ((index: number) => string | SharedRequest | null);
  /** The panes' `useSharedFetch` options (e.g. a `refetchInterval`). */
  options?: UseSharedFetchOptions | undefined;
  /** Buttons that drive the scenario (crash, heal, …), shown above the panes. */
  controls?: ReactNode;
  /** The scenario's one-line verdict once its end state is reached, else undefined. */
  verdict: (ctx: VerdictContext) => string | undefined;
  /** Replaces the default panes (one useSharedFetch pane per replica), e.g. for programs. */
  panes?: ReactNode;
  children?: ReactNode;
};

/** Host counter, controls, one pane per replica and, beside them, the narrated timeline. */
export function ScenarioFrame({ world, request, options, controls, verdict, panes, children }: FrameProps) {
  const state = useSyncExternalStore(world.subscribe, world.getSnapshot, world.getSnapshot);
  useVerdict(world, verdict);
  return (
    <div style={styles.layout}>
      <div style={styles.main}>
        <HostCounter host={world.host} />
        {controls && <div style={styles.controls}>{controls}</div>}
        {panes ?? (
          <ReplicaPanes replicas={state.replicas} request={request} crashed={state.crashed} closed={state.closed} options={options} />
        )}
        {children}
      </div>
      <NarrationView narration={world.narration} />
    </div>
  );
}

/**
 * A scenario's controls taken one after another: each button is enabled only at the step it
 * follows (`[step, label, onClick]`), so the play function and a reader take them in order.
 */
export function StepButtons<S extends string>({ step, buttons }: { step: S; buttons: [at: S, label: string, onClick: () => void][] }) {
  return (
    <>
      {buttons.map(([at, label, onClick]) => (
        <button key={label} type="button" onClick={onClick} disabled={step !== at}>
          {label}
        </button>
      ))}
    </>
  );
}

/** Re-evaluates the verdict whenever the world, the host or any store changes; ends the story once. */
function useVerdict(world: Replicas, verdict: FrameProps["verdict"]): void {
  useEffect(() => {
    let queued = false;
    let said: string | undefined;
    const check = () => {
      const state = world.getSnapshot();
      const crashed = new Set([...state.crashed].map((id) => shortOf(state.replicas.find((r) => r.replicaId === id)?.name ?? id)));
      const host = world.host.getState();
      const summary = hostSummary(world.host.calls, crashed);
      const text = verdict({ world, state, host, summary });
      if (text === undefined || text === world.narration.getSnapshot().verdict) return;
      if (summary !== said) world.narration.add({ text: summary });
      said = summary;
      world.narration.end(text);
    };
    // Batched to a task: stores report inside Yjs transactions, and the verdict reads them all.
    const soon = () => {
      if (queued) return;
      queued = true;
      setTimeout(() => {
        queued = false;
        check();
      }, 0);
    };
    const offs = [world.subscribe(soon), world.host.subscribe(soon), world.narration.subscribe(soon)];
    const watched = new Set<string>();
    const watchStores = () => {
      for (const r of world.getSnapshot().replicas) {
        if (watched.has(r.replicaId)) continue;
        watched.add(r.replicaId);
        offs.push(r.store.onInspect(soon));
      }
    };
    watchStores();
    offs.push(world.subscribe(watchStores));
    soon();
    return () => offs.forEach((off) => off());
  }, [world, verdict]);
}
