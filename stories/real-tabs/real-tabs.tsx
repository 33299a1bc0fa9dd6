import { useEffect, useState, useSyncExternalStore, type CSSProperties } from "react";
import { useDisposable } from "../support/replicas.ts";
import { clearTabsStorage, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { hostSummary, inFlightFrom, Narration, narrateHost } from "../support/narration.ts";
import { createWorldTimeline, type WorldTimeline } from "../support/world-timeline.ts";
import { HostCounter } from "../support/panes.tsx";
import { frameLayout, NarrationView } from "../support/scenario.tsx";
import { createSimulatedHost, defaultRespond, type HostCall, type SimulatedHost } from "../support/simulated-host.ts";
import type { RealTabsBridge, TabWindow } from "./tab-page.tsx";

export type RealTabsProps = {
  /** How many tabs open at first (2–4). */
  tabs: number;
  leaseMs: number;
  delayMs: number;
  url: string;
};

type Tab = { name: string; src: string; state: "open" | "crashed" };
type TabsWorld = {
  id: string;
  host: SimulatedHost;
  narration: Narration;
  timeline: WorldTimeline;
  stores: Map<string, SharedFetchStoreWithExtras>;
  crashedAt: Map<string, number>;
  /** When each tab was last reloaded: its page let go in an orderly way (pagehide), and a new replica opened. */
  reloadedAt: Map<string, number>;
  /** The calls a tab had in flight when it crashed: the host still answers them, to nobody. */
  lost: Set<number>;
  destroy(): void;
};

const NAMES = ["A", "B", "C", "D", "E", "F"];
const registry = (window as unknown as { __realTabs?: Record<string, RealTabsBridge> }).__realTabs ?? {};
(window as unknown as { __realTabs: Record<string, RealTabsBridge> }).__realTabs = registry;

const styles = {
  tabs: { display: "grid", gridTemplateColumns: "repeat(2, minmax(0, 1fr))", gap: "0.75rem" },
  frame: { border: "1px solid #c8cdd3", borderRadius: 8, overflow: "hidden", fontFamily: "system-ui, sans-serif", fontSize: 13 },
  bar: { display: "flex", gap: 6, alignItems: "center", padding: "4px 8px", background: "#f3f4f6" },
  crashed: { height: 120, display: "grid", placeItems: "center", background: "#eef0f2", color: "#5a6470", filter: "grayscale(1)" },
} satisfies Record<string, CSSProperties>;

/**
 * Every world's tabs persist their doc (connectTabs: IndexedDB, a copy in localStorage and its
 * mark) under the world's id. A world removes it when the story goes; one whose page went first (a
 * reload, a closed tab) is listed here and removed by the next world that finds its lock free.
 */
export const WORLDS_KEY = "shared-fetch-stories:real-tabs";
const worldLock = (id: string) => `${WORLDS_KEY}:${id}`;

function listedWorlds(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(WORLDS_KEY) ?? "[]");
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

function listWorld(id: string, listed: boolean): void {
  const others = listedWorlds().filter((x) => x !== id);
  try {
    localStorage.setItem(WORLDS_KEY, JSON.stringify(listed ? [...others, id] : others));
  } catch {
    // Storage denied: nothing was persisted either.
  }
}

async function forgetWorld(id: string): Promise<void> {
  await clearTabsStorage(id);
  listWorld(id, false);
}

/** Removes what worlds of pages gone without their unmount left behind (their lock is free). */
function sweepWorlds(except: string): void {
  for (const id of listedWorlds()) {
    if (id === except) continue;
    void navigator.locks?.request(worldLock(id), { ifAvailable: true }, (lock) => (lock ? forgetWorld(id) : undefined));
  }
}

export function createTabsWorld(delayMs: number, initialTabs: number): TabsWorld {
  const id = `rt-${Math.random().toString(36).slice(2, 10)}`;
  let destroyed = false;
  let releaseLock: () => void = () => {};
  void navigator.locks?.request(worldLock(id), () => (destroyed ? undefined : new Promise<void>((resolve) => (releaseLock = resolve))));
  listWorld(id, true);
  sweepWorlds(id);
  // Requests that arrive before every first tab is open are held: each iframe loads its page on
  // its own (slowly on a cold or busy machine), and a request answered before the others open
  // would leave no claim to watch and no tab to take over.
  const held: HostCall[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const host = createSimulatedHost({ delayMs, behaviorFor: (call) => (stores.size < initialTabs ? (held.push(call), "hang") : undefined) });
  const narration = new Narration();
  const timeline = createWorldTimeline(narration);
  const offs = [narrateHost(narration, host), () => timeline.destroy()];
  const stores = new Map<string, SharedFetchStoreWithExtras>();
  registry[id] = {
    fetchFor: (name) => host.fetchAs(name),
    register(name, store, model) {
      // A reloaded tab's page is gone: its replica tells nothing more (its last words came before).
      const before = stores.get(name);
      if (before) timeline.silence(before.replicaId);
      stores.set(name, store);
      timeline.add(name, store, model);
      narration.add({ text: `${name} opened: a real tab with its own store (${store.replicaId.slice(0, 8)}…)`, replica: name });
      if (stores.size !== initialTabs || held.length === 0) return;
      narration.add({ text: `every tab is open: the host answers in ${delayMs} ms` });
      for (const call of held.splice(0)) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          call.respond(200, defaultRespond(call));
        }, delayMs);
        timers.add(timer);
      }
    },
  };
  return {
    id,
    host,
    narration,
    timeline,
    stores,
    crashedAt: new Map(),
    reloadedAt: new Map(),
    lost: new Set(),
    destroy() {
      for (const timer of timers) clearTimeout(timer);
      for (const off of offs) off();
      host.destroy();
      delete registry[id];
      // The iframes are gone with the story; their persisted doc is not needed any more.
      destroyed = true;
      void forgetWorld(id).finally(() => releaseLock());
    },
  };
}

/** 2–4 iframes of /real-tab/, each a real tab on `connectTabs`, and buttons to add, crash and reload tabs. */
export function RealTabs({ tabs: initial, leaseMs, delayMs, url }: RealTabsProps) {
  const world = useDisposable(() => createTabsWorld(delayMs, Math.min(4, Math.max(2, initial))));
  useTakeoverVerdict(world, leaseMs);
  const srcOf = (name: string) =>
    `/real-tab/index.html?${new URLSearchParams({ world: world.id, name, tabs: world.id, lease: String(leaseMs), url })}`;
  const [tabs, setTabs] = useState<Tab[]>(() =>
    NAMES.slice(0, Math.min(4, Math.max(2, initial))).map((name) => ({ name, src: srcOf(name), state: "open" })),
  );
  const host = useSyncExternalStore(world.host.subscribe, world.host.getState, world.host.getState);
  const crash = (frame: HTMLIFrameElement | null, name: string) => {
    (frame?.contentWindow as TabWindow | null)?.__crash?.();
    world.crashedAt.set(name, Date.now());
    const gone = world.stores.get(name);
    if (gone) world.timeline.silence(gone.replicaId);
    for (const n of inFlightFrom(world.host.calls, name)) world.lost.add(n);
    world.narration.add({ text: `${name} crashed: its iframe was removed mid-request, with no goodbye (no pagehide)`, replica: name });
    setTabs((ts) => ts.map((t) => (t.name === name ? { ...t, state: "crashed" } : t)));
  };
  const reload = (frame: HTMLIFrameElement | null, name: string) => {
    world.reloadedAt.set(name, Date.now());
    world.narration.add({ text: `${name} reloads: a new replica in the same tab`, replica: name });
    frame?.contentWindow?.location.reload();
  };
  const add = () => setTabs((ts) => [...ts, { name: NAMES[ts.length]!, src: srcOf(NAMES[ts.length]!), state: "open" }]);
  return (
    <div style={frameLayout.layout}>
      <div style={frameLayout.main}>
        <HostCounter host={world.host} />
        <p style={{ fontFamily: "system-ui, sans-serif", fontSize: 14 }}>
          <button type="button" onClick={add} disabled={tabs.length >= NAMES.length}>
            Add a tab
          </button>{" "}
          lease {leaseMs} ms · host answers after {delayMs} ms · first request from{" "}
          <span data-testid="first-caller">{host.log[0]?.from ?? "—"}</span>
        </p>
        <div style={styles.tabs}>
          {tabs.map((t) => (
            <TabFrame key={t.name} tab={t} onCrash={crash} onReload={reload} />
          ))}
        </div>
      </div>
      <NarrationView narration={world.narration} />
    </div>
  );
}

function TabFrame({
  tab,
  onCrash,
  onReload,
}: {
  tab: Tab;
  onCrash: (frame: HTMLIFrameElement | null, name: string) => void;
  onReload: (frame: HTMLIFrameElement | null, name: string) => void;
}) {
  const [frame, setFrame] = useState<HTMLIFrameElement | null>(null);
  const crashed = tab.state === "crashed";
  return (
    <section aria-label={`Tab ${tab.name}`} style={styles.frame} data-tab={tab.name} data-crashed={String(crashed)}>
      <div style={styles.bar}>
        <strong>Tab {tab.name}</strong>
        <button type="button" disabled={crashed} onClick={() => onCrash(frame, tab.name)}>
          Crash {tab.name}
        </button>
        <button type="button" disabled={crashed} onClick={() => onReload(frame, tab.name)}>
          Reload {tab.name}
        </button>
      </div>
      {/* Removing the iframe ends its browsing context: its timers, channel and locks go with it (its pagehide stopped first: a crash). */}
      {crashed ? (
        <div style={styles.crashed}>crashed</div>
      ) : (
        <iframe ref={setFrame} title={`tab ${tab.name}`} src={tab.src} style={{ border: 0, width: "100%", height: 120 }} />
      )}
    </section>
  );
}

/**
 * The verdict once a tab took over from a crashed or reloaded one and was answered: how long after
 * the crash or the reload, against the lease (a lock release is an event, the lease a timer).
 */
function useTakeoverVerdict(world: TabsWorld, leaseMs: number): void {
  useEffect(
    () =>
      world.narration.subscribe(() => {
        const { entries, verdict } = world.narration.getSnapshot();
        if (verdict !== undefined) return;
        for (const e of entries) {
          const m = /^(\w+) took over .* from (\w+)(?: after \d+\.\d s)?: (.*)$/.exec(e.text);
          const crashedAt = m ? world.crashedAt.get(m[2]!) : undefined;
          const reloadedAt = m ? world.reloadedAt.get(m[2]!) : undefined;
          const goneAt = crashedAt ?? reloadedAt;
          if (!m || goneAt === undefined || e.at < goneAt) continue;
          const answered = entries.some((x) => x.at >= e.at && x.text === `host answered ${m[1]}`);
          if (!answered) return;
          // The verdict first: adding the summary re-enters this listener, which then returns at once.
          world.narration.end(
            crashedAt !== undefined
              ? `${m[1]} took over ${e.at - crashedAt} ms after ${m[2]}'s iframe was removed (${m[3]}); the lease is ${leaseMs} ms: a real tab's death is an event, not a timeout.`
              : `${m[1]} took over ${e.at - goneAt} ms after ${m[2]} reloaded (${m[3]}); the lease is ${leaseMs} ms: a reload lets go of its request at once (pagehide), nobody waits out the lease.`,
          );
          world.narration.add({ text: hostSummary(world.host.calls, new Set(world.crashedAt.keys()), world.lost) });
          return;
        }
      }),
    [world, leaseMs],
  );
}

/** A tab's window, for play functions (same origin). */
export function tabWindow(canvasElement: HTMLElement, name: string): TabWindow | null {
  const frame = canvasElement.querySelector<HTMLIFrameElement>(`section[data-tab="${name}"] iframe`);
  return (frame?.contentWindow as TabWindow | null) ?? null;
}
