import { QueryClientProvider, useQuery, type QueryKey, type UseQueryOptions } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, type CSSProperties, type ReactNode } from "react";
import { SharedFetchProvider, sharedQueryOptions } from "../../src/index.ts";
import type { HostCall } from "../../sim/host.ts";
import { DataAge, stateText } from "./query-state.tsx";
import { shortOf, type Replica, type Replicas } from "./replicas.ts";

/**
 * The list as the host answers a GET: its items and the host call that answered it; `optimistic`
 * once an `onMutate` added an item the host has not answered yet (`request` is then the list's it added to).
 */
export type ItemList = { items: string[]; request: number; optimistic?: true };

/**
 * The list host's answers: a POST adds an item, a GET answers the list with its call number. The
 * list lives in the closure: one per scenario, as a real server's table would be.
 */
export function listResponder(first: string[] = ["item 1"]): (call: HostCall) => unknown {
  const items = [...first];
  return (call) => {
    if (call.method !== "POST") return { items: [...items], request: call.n } satisfies ItemList;
    items.push(`item ${items.length + 1}`);
    return { added: items.at(-1) };
  };
}

const styles = {
  pane: { border: "1px solid #c8cdd3", borderRadius: 8, padding: "0.75rem 1rem", fontFamily: "system-ui, sans-serif", fontSize: 14 },
  list: { margin: "0.25rem 0 0.75rem", paddingLeft: "1.2rem" },
} satisfies Record<string, CSSProperties>;

type ListPaneProps<E extends Error> = {
  world: Replicas;
  replica: Replica;
  /** What the pane passes to `useQuery`: `sharedQueryOptions(…)` in the scenarios. */
  options: UseQueryOptions<ItemList, E, ItemList, QueryKey>;
  /** Buttons of this tab's own (a mutation), below the list. */
  children?: ReactNode;
  /** Where the pane appends each list it renders ("item 1, item 2 (#3)"), shown below it as a log. */
  shown?: string[] | undefined;
};

/**
 * One tab's list: a plain `useQuery(options)` in the replica's own QueryClient (the caller's
 * providers). Its section keeps every answer it showed (data-answers-seen, the host's call
 * numbers) and whether any render showed "not pending, no data" (data-lied), so a play function
 * checks the history, not a moment; each list shown is narrated.
 */
export function ListPane<E extends Error>({ world, replica, options, children, shown }: ListPaneProps<E>) {
  const q = useQuery(options);
  const who = shortOf(replica.name);
  const answer = q.data?.request;
  const seen = useRef<number[]>([]);
  if (answer !== undefined && seen.current.at(-1) !== answer) seen.current.push(answer); // eslint-disable-line react-hooks/refs
  const lied = useRef(false);
  if (q.status !== "pending" && q.data === undefined && q.error === null) lied.current = true; // eslint-disable-line react-hooks/refs
  const count = q.data?.items.length;
  const optimistic = q.data?.optimistic === true;
  // Appended as rendered, like the answers above: a list shown for one render is in the log too.
  const entry = q.data && `${q.data.items.join(", ")} (${optimistic ? "onMutate" : `#${answer}`})`;
  if (shown && entry && shown.at(-1) !== entry) shown.push(entry);
  useEffect(() => {
    if (answer !== undefined) {
      const from = optimistic ? "set by onMutate" : `host answer #${answer}`;
      world.narration.add({ text: `${who} shows ${count} item${count === 1 ? "" : "s"} (${from})`, replica: who });
    }
  }, [world, who, answer, count, optimistic]);
  return (
    <section
      aria-label={replica.name}
      style={styles.pane}
      data-status={q.status}
      data-answers-seen={seen.current.join(" ")} // eslint-disable-line react-hooks/refs
      data-lied={String(lied.current)} // eslint-disable-line react-hooks/refs
    >
      <h2 style={{ margin: "0 0 0.5rem", fontSize: 16 }}>{replica.name}</h2>
      <div data-testid="status">{stateText(q)}</div>
      <ul style={styles.list} data-testid="items">
        {q.data?.items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
      {/* Each value named: a bare "—" under the list said nothing of what was missing. */}
      <div style={{ color: "#5a6470" }} data-testid="answer">
        {answer === undefined ? "host answer —" : `host answer #${answer}`}
      </div>
      <div style={{ color: "#5a6470" }}>
        updated:{" "}
        <span data-testid="updated">
          <DataAge q={q} />
        </span>
      </div>
      <div>
        error: <span data-testid="error">{q.error ? q.error.message : "—"}</span>
      </div>
      {children}
      {shown && (
        <ol
          aria-label={`What ${who} showed`}
          data-testid="shown"
          style={{ margin: "0.75rem 0 0", paddingLeft: "1.2rem", color: "#5a6470" }}
        >
          {shown.map((list, i) => (
            <li key={i}>{list}</li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** One tab: its QueryClient, its store's provider (the bridge that brings other tabs' results), its list of `url`. */
export function ListTab({ url, ...pane }: Omit<ListPaneProps<Error>, "options"> & { url: string }) {
  const { store } = pane.replica;
  const options = useMemo(() => sharedQueryOptions<ItemList>(store, url, { staleTime: 60_000 }), [store, url]);
  return (
    <QueryClientProvider client={pane.replica.queryClient}>
      <SharedFetchProvider store={store}>
        <ListPane {...pane} options={options} />
      </SharedFetchProvider>
    </QueryClientProvider>
  );
}
