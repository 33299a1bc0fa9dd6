import { QueryClientProvider, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, type CSSProperties } from "react";
import { SharedFetchProvider, sharedQueryOptions } from "../../src/index.ts";
import type { ItemList } from "./list-pane.tsx";
import { shortOf, type Replica, type Replicas } from "./replicas.ts";

const styles = {
  pane: { border: "1px solid #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif", fontSize: 14 },
  fields: { display: "grid", gridTemplateColumns: "max-content 1fr", gap: "0.25rem 0.75rem", margin: 0 },
  term: { color: "#5a6470" },
  value: { margin: 0, overflowWrap: "anywhere" },
} satisfies Record<string, CSSProperties>;

type RetryPaneProps = {
  world: Replicas;
  replica: Replica;
  url: string;
  /** TanStack's retry options, given to `sharedQueryOptions`: they run in the claimant's claim. */
  retry: number;
  retryDelay: number;
  /** False: the tab has not opened the list yet (no query is mounted). */
  enabled?: boolean;
};

/**
 * One tab's `useQuery(sharedQueryOptions(store, url, { retry, retryDelay }))`, showing what
 * TanStack's retryer would show: `failureCount` and `failureReason` beside the status, data and
 * error. Its section keeps the counts it showed (data-failures-seen, "0 1 2 0"), the answers
 * (data-answers-seen) and whether any render showed "not pending, no data" (data-lied), so a
 * play function checks the history, not a moment; each count, list and error shown is narrated.
 */
function RetryPane({ world, replica, url, retry, retryDelay }: RetryPaneProps) {
  const { store } = replica;
  const options = useMemo(() => sharedQueryOptions<ItemList>(store, url, { retry, retryDelay }), [store, url, retry, retryDelay]);
  const q = useQuery(options);
  const who = shortOf(replica.name);
  const failures = useRef<number[]>([]);
  if (failures.current.at(-1) !== q.failureCount) failures.current.push(q.failureCount); // eslint-disable-line react-hooks/refs
  const answers = useRef<number[]>([]);
  const answer = q.data?.request;
  if (answer !== undefined && answers.current.at(-1) !== answer) answers.current.push(answer); // eslint-disable-line react-hooks/refs
  const lied = useRef(false);
  if (q.status !== "pending" && q.data === undefined && q.error === null) lied.current = true; // eslint-disable-line react-hooks/refs
  const reason = q.failureReason?.message;
  const error = q.error?.message;
  const count = q.data?.items.length;
  const sent = () => world.host.calls.filter((c) => c.from === who).length;
  useEffect(() => {
    if (q.failureCount > 0 && !error)
      world.narration.add({
        text: `${who} shows failureCount ${q.failureCount}${sent() === 0 ? ", having sent nothing" : ""}: ${reason}`,
        replica: who,
      });
  }, [world, who, q.failureCount, error]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (error) world.narration.add({ text: `${who} shows the error after the last attempt: ${error}`, replica: who });
  }, [world, who, error]);
  useEffect(() => {
    if (answer !== undefined)
      world.narration.add({ text: `${who} shows ${count} item${count === 1 ? "" : "s"} (host answer #${answer})`, replica: who });
  }, [world, who, answer, count]);
  const field = (term: string, id: string, value: string) => (
    <>
      <dt style={styles.term}>{term}</dt>
      <dd style={styles.value} data-testid={id}>
        {value}
      </dd>
    </>
  );
  return (
    <section
      aria-label={replica.name}
      style={styles.pane}
      data-status={q.status}
      data-failures-seen={failures.current.join(" ")} // eslint-disable-line react-hooks/refs
      data-answers-seen={answers.current.join(" ")} // eslint-disable-line react-hooks/refs
      data-lied={String(lied.current)} // eslint-disable-line react-hooks/refs
    >
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name}</h2>
      <dl style={styles.fields}>
        {field("status", "status", `${q.status} · ${q.fetchStatus}`)}
        {field("failureCount", "failure-count", String(q.failureCount))}
        {field("failureReason", "failure-reason", reason ?? "—")}
        {field("data", "items", q.data ? `${q.data.items.join(", ")} (host answer #${answer})` : "—")}
        {field("error", "error", error ?? "—")}
      </dl>
    </section>
  );
}

/** One tab: its QueryClient, its store's provider (the bridge that brings the claim's count and other tabs' results), its pane. */
export function RetryTab(props: RetryPaneProps) {
  if (props.enabled === false)
    return (
      <section aria-label={props.replica.name} style={styles.pane} data-status="closed" data-lied="false">
        <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{props.replica.name}</h2>
        <p style={{ ...styles.term, margin: 0 }}>has not opened the list yet</p>
      </section>
    );
  return (
    <QueryClientProvider client={props.replica.queryClient}>
      <SharedFetchProvider store={props.replica.store}>
        <RetryPane {...props} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}
