/**
 * TanStack's Query devtools (`ReactQueryDevtoolsPanel`, for one replica's QueryClient) beside the
 * shared-fetch panel (for its store), and a watch over what the shared query showed in each
 * replica, what the doc and the host received, and which Query devtools button was pressed when.
 */
import type { Query, QueryCacheNotifyEvent } from "@tanstack/react-query";
// The production entry: Storybook's build runs with NODE_ENV "production", where the package's main
// entry renders nothing (as shared-fetch's own panel, imported from devtools/production too).
import { ReactQueryDevtoolsPanel } from "@tanstack/react-query-devtools/production";
import { useState, type CSSProperties, type MouseEvent } from "react";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { shortOf, type Replica, type Replicas } from "./replicas.ts";

/** A Query devtools button as pressed: who, which, and the counts just before it acted. */
export type Press = {
  who: string;
  button: string;
  requests: number;
  updates: number;
  changes: Map<string, number>;
  shown: Map<string, string | undefined>;
};

/** What a shared query shows, in words ("answer #2", the error's message), or undefined while pending. */
function shownOf(query: Query): string | undefined {
  const { status, data, error } = query.state;
  if (status === "error") return `the error "${error?.message ?? "?"}"`;
  const n = (data as { request?: unknown } | undefined)?.request;
  return typeof n === "number" ? `answer #${n}` : undefined;
}

/**
 * Narrates what each replica's shared query (the only query of its QueryClient) shows as it
 * changes, counts the doc updates every replica's doc receives and each query's changes, and keeps
 * each Query devtools button pressed with those counts: "nothing written meanwhile" made checkable.
 */
export function watchQueries(world: Replicas) {
  const shown = new Map<string, string | undefined>();
  const changes = new Map<string, number>();
  const presses: Press[] = [];
  const names = world.replicas.map((r) => shortOf(r.name));
  let updates = 0;
  const counted = () => updates++;
  const offs = world.replicas.map((r) => {
    const who = shortOf(r.name);
    r.doc.on("update", counted);
    const off = r.queryClient.getQueryCache().subscribe((event: QueryCacheNotifyEvent) => {
      if (event.type !== "updated") return;
      changes.set(who, (changes.get(who) ?? 0) + 1);
      const now = shownOf(event.query);
      if (now === undefined || now === shown.get(who)) return;
      shown.set(who, now);
      world.narration.add({ text: `${who} shows ${now}`, replica: who });
    });
    return () => {
      off();
      r.doc.off("update", counted);
    };
  });
  const count = (p: Press | undefined, who: string) => (p ? (p.changes.get(who) ?? 0) : (changes.get(who) ?? 0));
  /**
   * Between the last Trigger Error and the Restore Error after it (or now): the host requests, the
   * doc updates, and each other replica's query changes and what it shows.
   */
  const whileErrorShown = () => {
    let at = -1;
    presses.forEach((p, i) => void (p.button === "Trigger Error" && (at = i)));
    const from = presses[at];
    if (!from) return undefined;
    const to = presses.slice(at + 1).find((p) => p.button === "Restore Error" && p.who === from.who);
    const others = names
      .filter((n) => n !== from.who)
      .map((n) => ({ who: n, changes: count(to, n) - count(from, n), shows: (to?.shown ?? shown).get(n) }));
    const now = { requests: world.host.calls.length, updates };
    return {
      who: from.who,
      requests: (to ?? now).requests - from.requests,
      updates: (to ?? now).updates - from.updates,
      others,
      restored: !!to,
    };
  };
  return {
    presses: presses as readonly Press[],
    /** What `who`'s query shows now ("answer #3"), as last narrated. */
    shown: (who: string) => shown.get(who),
    whileErrorShown,
    press(who: string, button: string) {
      presses.push({ who, button, requests: world.host.calls.length, updates, changes: new Map(changes), shown: new Map(shown) });
      world.narration.add({ text: `${who}'s Query devtools: ${button}`, replica: who });
      const during = button === "Restore Error" ? whileErrorShown() : undefined;
      if (!during) return;
      const others = during.others.map(
        (o) => `${o.who}'s query ${o.changes === 0 ? "unchanged" : `changed ${o.changes} times`}, showing ${o.shows ?? "nothing"}`,
      );
      world.narration.add({
        text: `while ${who} showed the devtools' error: ${during.updates} updates to the shared doc, ${during.requests} host requests; ${others.join("; ")}`,
      });
    },
    destroy: () => offs.forEach((off) => off()),
  };
}

export type QueryWatch = ReturnType<typeof watchQueries>;

const styles = {
  bar: { fontFamily: "system-ui, sans-serif", fontSize: 14, display: "flex", gap: 8, alignItems: "center", margin: "1rem 0 0.5rem" },
  tab: { font: "inherit", padding: "0.2rem 0.6rem", borderRadius: 6, border: "1px solid #8a939d", background: "white", cursor: "pointer" },
  selected: { background: "#1f2933", color: "white", border: "1px solid #1f2933" },
  // Side by side only where each holds its own table and buttons whole: the Query devtools need
  // 30rem, the shared-fetch panel's Keys table about 45rem (its request column at its 12rem floor,
  // the other seven at their narrowest). In two equal halves it got 38rem at 1280 px, and its Actions
  // column was past the table's edge, behind a sideways scroll. Narrower than both, one goes above the other.
  pair: { display: "flex", flexWrap: "wrap", gap: "0.75rem" },
  // Their own height: the Query devtools fill their parent's (height 100%), the shared-fetch panel scrolls inside.
  tool: { height: 340, border: "1px solid #c8cdd3", borderRadius: 8, overflow: "hidden", minWidth: 0 },
  query: { flex: "1 1 30rem" },
  shared: { flex: "1 1 50rem" },
} satisfies Record<string, CSSProperties>;

/**
 * One replica's two tools side by side. Every pair stays mounted (hidden while another is shown),
 * so each keeps the query selected in it across a switch. A click on a Query devtools' action
 * button is told (`onPress`) before it acts: React hears it on the way up, the devtools (Solid,
 * listening on the document) after.
 */
function DevtoolsPair({ replica, hidden, onPress }: { replica: Replica; hidden: boolean; onPress: (button: string) => void }) {
  const told = (e: MouseEvent) => {
    const button = (e.target as Element).closest("button.tsqd-query-details-actions-btn");
    if (button && !(button as HTMLButtonElement).disabled) onPress(button.textContent?.trim().replace(/\s+/g, " ") ?? "?");
  };
  return (
    <div role="tabpanel" aria-label={`${replica.name}'s devtools`} hidden={hidden} style={hidden ? undefined : styles.pair}>
      <section aria-label={`TanStack Query devtools of ${replica.name}`} style={{ ...styles.tool, ...styles.query }} onClick={told}>
        <ReactQueryDevtoolsPanel client={replica.queryClient} />
      </section>
      <SharedFetchDevtoolsPanel store={replica.store} queryClient={replica.queryClient} style={{ ...styles.tool, ...styles.shared }} />
    </div>
  );
}

/**
 * The devtools of one replica at a time, chosen by tabs ("Replica A's devtools"): two Query
 * devtools and two shared-fetch panels at once leave each too narrow to read at 800 px.
 */
export function DevtoolsSwitch({ world, watch }: { world: Replicas; watch: QueryWatch }) {
  const [shown, setShown] = useState(world.replicas[0]!.replicaId);
  return (
    <>
      <div role="tablist" aria-label="Devtools of" style={styles.bar}>
        <span>Devtools of</span>
        {world.replicas.map((r) => (
          <button
            key={r.replicaId}
            type="button"
            role="tab"
            aria-selected={shown === r.replicaId}
            style={shown === r.replicaId ? { ...styles.tab, ...styles.selected } : styles.tab}
            onClick={() => {
              if (shown !== r.replicaId) world.narration.add({ text: `the devtools show ${shortOf(r.name)}'s QueryClient and store` });
              setShown(r.replicaId);
            }}
          >
            {r.name}
          </button>
        ))}
      </div>
      {world.replicas.map((r) => (
        <DevtoolsPair
          key={r.replicaId}
          replica={r}
          hidden={shown !== r.replicaId}
          onPress={(button) => watch.press(shortOf(r.name), button)}
        />
      ))}
    </>
  );
}
