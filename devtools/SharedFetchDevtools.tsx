import { useId, useState, type KeyboardEvent } from "react";
import type { Awareness } from "y-protocols/awareness";
import type { SharedFetchStore } from "./core.ts";
import { EventLog } from "./EventLog.tsx";
import { shortId } from "./format.ts";
import { KeysTable } from "./KeysTable.tsx";
import { MalformedList } from "./MalformedList.tsx";
import { ReplicasTable } from "./ReplicasTable.tsx";
import { styles } from "./styles.ts";
import { devtoolsModelFor, useDevtoolsModel } from "./use-devtools-model.ts";
import type { DevtoolsSnapshot } from "./types.ts";

export type DevtoolsTab = "keys" | "replicas" | "events" | "malformed";

export type SharedFetchDevtoolsProps = {
  /** The store to inspect (from createSharedFetchStore). */
  store: SharedFetchStore;
  /** The awareness given to the store: adds presence to replicas and claims. */
  awareness?: Awareness;
  /** Default false. */
  initialIsOpen?: boolean;
  /** Default "keys". */
  initialTab?: DevtoolsTab;
};

const TABS: { id: DevtoolsTab; name: string; count: (s: DevtoolsSnapshot) => number }[] = [
  { id: "keys", name: "Keys", count: (s) => s.keys.length },
  { id: "replicas", name: "Replicas", count: (s) => s.replicas.length },
  { id: "events", name: "Events", count: (s) => s.events.length },
  { id: "malformed", name: "Malformed", count: (s) => s.malformed.length },
];

/** A toggle button "shared-fetch" and, when open, a panel showing every replica's claims. */
export function SharedFetchDevtools({ store, awareness, initialIsOpen = false, initialTab = "keys" }: SharedFetchDevtoolsProps) {
  const [open, setOpen] = useState(initialIsOpen);
  const panelId = useId();
  // Created at mount, not at first open: the event log should hold what happened before.
  devtoolsModelFor(store, awareness);
  return (
    <div style={styles.root} data-testid="shared-fetch-devtools">
      <button type="button" style={styles.toggle} aria-expanded={open} aria-controls={open ? panelId : undefined} onClick={() => setOpen((o) => !o)}>
        shared-fetch
      </button>
      {open && <Panel id={panelId} store={store} awareness={awareness} initialTab={initialTab} />}
    </div>
  );
}

type PanelProps = { id: string; store: SharedFetchStore; awareness: Awareness | undefined; initialTab: DevtoolsTab };

// Subscribes only while open: a closed panel costs one lazily rebuilt model, no renders.
function Panel({ id, store, awareness, initialTab }: PanelProps) {
  const snapshot = useDevtoolsModel(store, awareness);
  const [tab, setTab] = useState(initialTab);
  const tabId = (t: DevtoolsTab) => `${id}-tab-${t}`;
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    const next = TABS[(TABS.findIndex((t) => t.id === tab) + step + TABS.length) % TABS.length]!.id;
    setTab(next);
    document.getElementById(tabId(next))?.focus();
  };
  return (
    <section id={id} style={styles.panel} aria-label="shared-fetch devtools">
      <div style={styles.header}>
        <div role="tablist" aria-label="shared-fetch devtools views" style={styles.tabs} onKeyDown={onKeyDown}>
          {TABS.map((t) => (
            <button
              key={t.id}
              id={tabId(t.id)}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              aria-controls={`${id}-view`}
              tabIndex={tab === t.id ? 0 : -1}
              style={{ ...styles.tab, ...(tab === t.id ? styles.tabSelected : {}) }}
              onClick={() => setTab(t.id)}
            >
              {t.name} ({t.count(snapshot)})
            </button>
          ))}
        </div>
        <span style={styles.muted} title={snapshot.replicaId}>
          inspecting {shortId(snapshot.replicaId, 24)}
        </span>
      </div>
      <div id={`${id}-view`} role="tabpanel" aria-labelledby={tabId(tab)} style={styles.body}>
        {tab === "keys" && <KeysTable rows={snapshot.keys} />}
        {tab === "replicas" && <ReplicasTable rows={snapshot.replicas} hasAwareness={snapshot.hasAwareness} />}
        {tab === "events" && <EventLog events={snapshot.events} />}
        {tab === "malformed" && <MalformedList records={snapshot.malformed} />}
      </div>
    </section>
  );
}
