import { QueryClientProvider } from "@tanstack/react-query";
import { useRef, useSyncExternalStore, type CSSProperties, type ReactNode } from "react";
import { SharedFetchProvider, useSharedFetch, type SharedRequest, type UseSharedFetchOptions } from "../../src/index.ts";
import type { Host, HostState } from "../../sim/host.ts";
import { wrappable } from "./path-break.tsx";
import { DataAge, stateText } from "./query-state.tsx";
import type { Replica } from "./replicas.ts";

const styles = {
  row: { display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(16rem, 1fr))", gap: "1rem" },
  pane: {
    border: "1px solid #c8cdd3",
    borderRadius: 8,
    padding: "0.75rem 1rem",
    fontFamily: "system-ui, sans-serif",
    fontSize: 14,
  },
  heading: { margin: "0 0 0.5rem", fontSize: 16 },
  fields: { display: "grid", gridTemplateColumns: "max-content 1fr", gap: "0.25rem 0.75rem", margin: 0 },
  term: { color: "#5a6470" },
  // Wrapped between words; a word longer than the line (a URL, a hash) breaks where it must. With
  // word-break: break-all every line ran to the edge and cut keys and values mid-word ("hos / t").
  data: { margin: 0, whiteSpace: "pre-wrap", overflowWrap: "anywhere", fontSize: 12 },
  host: { fontFamily: "system-ui, sans-serif", fontSize: 14, margin: "0 0 1rem" },
  // A crashed pane is its last screen, greyed out: nothing in it can be used any more.
  crashed: { opacity: 0.45, filter: "grayscale(1)", background: "#eef0f2" },
  badge: { marginLeft: 8, padding: "0 6px", borderRadius: 4, background: "#5a6470", color: "white", fontSize: 12, fontWeight: 600 },
} satisfies Record<string, CSSProperties>;

/** The host's state, re-rendered on every change. */
export function useHostState(host: Host): HostState {
  return useSyncExternalStore(host.subscribe, host.getState, host.getState);
}

/** The shared "host requests: N" counter (data-testid "host-requests"). */
export function HostCounter({ host }: { host: Host }) {
  const state = useHostState(host);
  return (
    <p style={styles.host}>
      <strong data-testid="host-requests">host requests: {state.requests}</strong>
      {" · "}
      <span data-testid="host-in-flight">in flight: {state.inFlight}</span>
      {" · "}
      <span data-testid="host-aborted">aborted: {state.aborted}</span>
    </p>
  );
}

/** Panes side by side. */
export function PaneRow({ children }: { children: ReactNode }) {
  return <div style={styles.row}>{children}</div>;
}

type PaneProps = {
  replica: Replica;
  /** What the pane asks for; `null` leaves it idle. */
  request: string | SharedRequest | null;
  /** Crashed: shown greyed with its last state, buttons off (its store lives on, cut off). */
  crashed?: boolean;
  /** Closed in an orderly way: its hook is unmounted (the store was destroyed). */
  closed?: boolean;
  /** `useSharedFetch`'s options (e.g. a `refetchInterval`). */
  options?: UseSharedFetchOptions | undefined;
};

/**
 * One replica's view: its own QueryClient and store, and one `useSharedFetch`. A landmark named
 * after the replica ("Replica A") holding fields with data-testid status (TanStack's `status · fetchStatus`), claim, data,
 * updated (the data's age, fresh or stale) and error.
 */
export function ReplicaPane({ replica, request, crashed, closed, options }: PaneProps) {
  if (closed) {
    return (
      <section aria-label={replica.name} style={{ ...styles.pane, ...styles.crashed }} data-status="closed" data-claim="none">
        <h2 style={styles.heading}>
          {replica.name} <span style={styles.badge}>closed</span>
        </h2>
        <p style={{ margin: 0 }}>Tab closed: its store was destroyed, its own claims released.</p>
      </section>
    );
  }
  return (
    <QueryClientProvider client={replica.queryClient}>
      <SharedFetchProvider store={replica.store}>
        <PaneBody replica={replica} request={request} crashed={crashed} options={options} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}

function claimText(claim: { replicaId: string; mine: boolean; stale: boolean } | undefined): string {
  if (!claim) return "none";
  return `${claim.mine ? "mine" : claim.replicaId}${claim.stale ? " (stale)" : ""}`;
}

/** "Not pending, no data": the lie a takeover through "no claim" would show (invariant 4, 8). */
function lies(request: PaneProps["request"], status: string, hasData: boolean, hasError: boolean): boolean {
  return request !== null && status !== "pending" && !hasData && !hasError;
}

/** The host's call number in a default answer ({ request: n }), to tell one answer from the next. */
function requestNumber(data: unknown): number | undefined {
  const n = (data as { request?: unknown } | null | undefined)?.request;
  return typeof n === "number" ? n : undefined;
}

function PaneBody({ replica, request, crashed, options }: PaneProps) {
  const result = useSharedFetch(request, options);
  // Every claim this pane has shown, in order: play functions check the history after the fact
  // instead of racing to catch a transient state on a busy machine.
  const claimsSeen = useRef<string[]>([]);
  const shown = claimText(result.claim);
  if (claimsSeen.current.at(-1) !== shown) claimsSeen.current.push(shown); // eslint-disable-line react-hooks/refs
  // Remembered, not sampled: a play function asserts no render ever showed "done, nothing here".
  const lied = useRef(false);
  // Every answer this pane has shown, by the host's call number (data-answers-seen): a play function
  // checks that each new revision reached every pane, however briefly it was on screen.
  const answersSeen = useRef<number[]>([]);
  const answer = requestNumber(result.data);
  if (answer !== undefined && answersSeen.current.at(-1) !== answer) answersSeen.current.push(answer); // eslint-disable-line react-hooks/refs
  if (lies(request, result.status, result.data !== undefined, result.error !== undefined)) lied.current = true; // eslint-disable-line react-hooks/refs
  return (
    <section
      aria-label={replica.name}
      style={crashed ? { ...styles.pane, ...styles.crashed } : styles.pane}
      data-status={result.status}
      data-crashed={String(crashed ?? false)}
      data-lied={String(lied.current)} // eslint-disable-line react-hooks/refs
      data-claim={shown}
      data-claims-seen={claimsSeen.current.join(" > ")} // eslint-disable-line react-hooks/refs
      data-answers-seen={answersSeen.current.join(" ")} // eslint-disable-line react-hooks/refs
    >
      <h2 style={styles.heading}>
        {replica.name}
        {crashed && <span style={styles.badge}>crashed</span>}
      </h2>
      <dl style={styles.fields}>
        <dt style={styles.term}>replica id</dt>
        <dd style={{ margin: 0 }} data-testid="replica-id">
          {replica.replicaId}
        </dd>
        <dt style={styles.term}>status</dt>
        <dd style={{ margin: 0 }} data-testid="status">
          {stateText(result)}
        </dd>
        <dt style={styles.term}>claim</dt>
        <dd style={{ margin: 0 }} data-testid="claim">
          {claimText(result.claim)}
        </dd>
        <dt style={styles.term}>data</dt>
        <dd style={{ margin: 0 }}>
          <pre style={styles.data} data-testid="data">
            {result.data === undefined ? "—" : wrappable(JSON.stringify(result.data, null, 2))}
          </pre>
        </dd>
        <dt style={styles.term}>updated</dt>
        <dd style={{ margin: 0 }} data-testid="updated">
          <DataAge q={result} frozen={crashed} />
        </dd>
        <dt style={styles.term}>error</dt>
        <dd style={{ margin: 0 }} data-testid="error">
          {result.error ? `${result.error.message}${result.error.status !== undefined ? ` (HTTP ${result.error.status})` : ""}` : "—"}
        </dd>
      </dl>
      <p style={{ margin: "0.75rem 0 0" }}>
        <button type="button" disabled={crashed} onClick={() => void result.refetch()}>
          Refetch
        </button>
      </p>
    </section>
  );
}

/** One pane per replica, side by side; `request` may differ per replica (by index). */
export function ReplicaPanes({
  replicas,
  request,
  crashed,
  closed,
  options,
}: {
  replicas: readonly Replica[];
  request: PaneProps["request"] | ((index: number) => PaneProps["request"]);
  crashed?: ReadonlySet<string>;
  closed?: ReadonlySet<string>;
  options?: UseSharedFetchOptions | undefined;
}) {
  return (
    <PaneRow>
      {replicas.map((replica, i) => (
        <ReplicaPane
          key={replica.replicaId}
          replica={replica}
          request={typeof request === "function" ? request(i) : request}
          crashed={crashed?.has(replica.replicaId) ?? false}
          closed={closed?.has(replica.replicaId) ?? false}
          options={options}
        />
      ))}
    </PaneRow>
  );
}
