"use client";

import { QueryClientContext, type QueryClient } from "@tanstack/react-query";
import { useContext, useEffect, useId, useRef, useState, type CSSProperties } from "react";
import type { Awareness } from "y-protocols/awareness";
import type { SharedFetchStore } from "./core.ts";
import { EventLog } from "./EventLog.tsx";
import { shortId } from "./format.ts";
import { KeysView } from "./KeysView.tsx";
import { MalformedList } from "./MalformedList.tsx";
import { ReplicasTable } from "./ReplicasTable.tsx";
import { Simulations } from "./Simulations.tsx";
import { styles } from "./styles.ts";
import { Tabs, type TabSpec } from "./Tabs.tsx";
import { TimelineView } from "./TimelineView.tsx";
import type { DevtoolsSnapshot } from "./types.ts";
import { devtoolsModelFor, useDevtoolsModel } from "./use-devtools-model.ts";
import { useHydrating } from "./use-hydrating.ts";

export type DevtoolsTab = "keys" | "timeline" | "replicas" | "events" | "malformed";

export type SharedFetchDevtoolsPanelProps = {
  /** The store to inspect (from createSharedFetchStore). */
  store: SharedFetchStore;
  /** The awareness given to the store: adds presence to replicas and claims. */
  awareness?: Awareness | undefined;
  /** Default "keys". */
  initialTab?: DevtoolsTab | undefined;
  /**
   * The app's QueryClient, for "invalidate" (its queries of the key are invalidated as well as
   * the doc's record). Default: the one of a surrounding QueryClientProvider, if any.
   */
  queryClient?: QueryClient | undefined;
  /**
   * Show the development simulations in the header (crash this replica, pause network). Default:
   * true from `shared-fetch/devtools` (development only), false from `/production`, whose panel
   * anyone who opens it may use.
   */
  simulations?: boolean | undefined;
  /** Shown as a close button when given (the floating panel passes it). */
  onClose?: (() => void) | undefined;
  style?: CSSProperties | undefined;
};

function tabs(s: DevtoolsSnapshot): TabSpec<DevtoolsTab>[] {
  return [
    { id: "keys", name: "Keys", count: s.keys.length },
    { id: "timeline", name: "Timeline", count: s.timeline.length },
    { id: "replicas", name: "Replicas", count: s.replicas.length },
    { id: "events", name: "Events", count: s.events.length },
    { id: "malformed", name: "Malformed", count: s.malformed.length },
  ];
}

/**
 * The panel itself, to embed anywhere (the floating toggle and the TanStack Devtools plugin use it).
 * Nothing on the server and while hydrating: it shows this page's store, from the render after.
 */
export function SharedFetchDevtoolsPanel(props: SharedFetchDevtoolsPanelProps) {
  return useHydrating() ? null : <Panel {...props} />;
}

function Panel({ store, awareness, initialTab = "keys", simulations = false, queryClient, onClose, style }: SharedFetchDevtoolsPanelProps) {
  const id = useId();
  // The context, not useQueryClient: an app without a provider gets the panel, not a throw.
  const provided = useContext(QueryClientContext);
  const client = queryClient ?? provided;
  const snapshot = useDevtoolsModel(store, awareness);
  const was = useRef(store);
  useEffect(() => {
    if (was.current !== store) devtoolsModelFor(store, awareness).follows(was.current);
    was.current = store;
  }, [store, awareness]);
  const [tab, setTab] = useState(initialTab);
  // A new store here (a logout, a new identity): the filters that named the old one's replicas and keys start over.
  const [shown, setShown] = useState({ store, replica: "", n: 0 });
  if (shown.store !== store) setShown({ store, replica: "", n: shown.n + 1 });
  const replica = shown.store === store ? shown.replica : "";
  const setReplica = (r: string) => setShown((old) => ({ ...old, replica: r }));
  const tabId = (t: DevtoolsTab) => `${id}-tab-${t}`;
  const frozen = snapshot.simulations.crashed
    ? "This replica crashed (simulation): it writes nothing more"
    : snapshot.storeDestroyed
      ? "This replica's store is destroyed: it writes nothing more"
      : undefined;
  return (
    <section
      style={{ ...styles.root, ...styles.panel, ...style }}
      aria-label="shared-fetch devtools"
      data-testid="shared-fetch-devtools-panel"
    >
      <div style={styles.header}>
        <Tabs
          tabs={tabs(snapshot)}
          selected={tab}
          onSelect={setTab}
          idOf={tabId}
          panelId={`${id}-view`}
          label="shared-fetch devtools views"
        />
        <span style={styles.muted} title={snapshot.replicaId}>
          inspecting {shortId(snapshot.replicaId, 24)}
          {modeLabel(store)}
          {snapshot.storeDestroyed && " · store destroyed: its last view"}
        </span>
        {simulations && <Simulations store={store} state={snapshot.simulations} worker={snapshot.worker} />}
        {onClose && (
          <button type="button" style={{ ...styles.button, marginLeft: "auto" }} onClick={onClose} aria-label="Close shared-fetch devtools">
            ✕
          </button>
        )}
      </div>
      <div id={`${id}-view`} role="tabpanel" aria-labelledby={tabId(tab)} style={styles.body} tabIndex={0}>
        {tab === "keys" && (
          <KeysView snapshot={snapshot} store={store} queryClient={client} replica={replica} onReplica={setReplica} frozen={frozen} />
        )}
        {tab === "timeline" && <TimelineView key={shown.n} snapshot={snapshot} />}
        {tab === "replicas" && (
          <ReplicasTable
            snapshot={snapshot}
            frozen={!!frozen}
            onShowKeys={(r) => {
              setReplica(r);
              setTab("keys");
              // The clicked button leaves the DOM: the keyboard goes on from the Keys tab.
              document.getElementById(tabId("keys"))?.focus();
            }}
          />
        )}
        {tab === "events" && <EventLog events={snapshot.events} />}
        {tab === "malformed" && <MalformedList records={snapshot.malformed} store={store} frozen={frozen} />}
      </div>
    </section>
  );
}

/** Where the inspected replica runs, and why in a tab, for stores from connectBrowser (`mode`, `modeReason`); nothing for other stores. */
function modeLabel(store: unknown): string {
  const { mode, modeReason } = (store ?? {}) as { mode?: unknown; modeReason?: unknown };
  if (mode === "shared-worker") return " · in the browser's SharedWorker";
  return mode === "tab" ? ` · in this tab (${typeof modeReason === "string" ? modeReason : "no SharedWorker"})` : "";
}
