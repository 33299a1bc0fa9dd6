/**
 * The scenarios of "TanStack Query · offline mutation resumed in every tab" and "· paused in an open
 * tab, restored in another": tabs of one browser, each QueryClient under TanStack's persister on one
 * storage, driven offline (A adds an item), reloaded (every tab, or all but A), back online.
 */
import { onlineManager, useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { SharedFetchDevtoolsPanel } from "../../devtools/production.ts";
import { sharedMutationFn, sharedQueryKey, sharedQueryOptions } from "../../src/index.ts";
import { ListPane, listResponder, type ItemList } from "./list-pane.tsx";
import { PaneRow } from "./panes.tsx";
import { browserStorage, MutationStatus, pausedSaved, PersistedTab } from "./persisted-tabs.tsx";
import { createReplicas, shortOf, useDisposable, type Replica, type Replicas } from "./replicas.ts";
import { ScenarioFrame, StepButtons, type VerdictContext } from "./scenario.tsx";
import { createSimulatedHost } from "./simulated-host.ts";

type Args = { delayMs: number; url: string };

/** The tabs at the start, A first (A adds the item), and whether A stays open while the others reload. */
export type ResumePlan = { tabs: string[]; keepA: boolean };
export const EVERY_TAB_RELOADS: ResumePlan = { tabs: ["Tab A", "Tab B", "Tab C"], keepA: false };
export const A_STAYS_OPEN: ResumePlan = { tabs: ["Tab A", "Tab B"], keepA: true };

/** The panes once the tabs reloaded: a reload of "Tab B" is "Tab B2"; A as it was when it stays open. */
export const afterReload = ({ tabs, keepA }: ResumePlan) => tabs.map((name, i) => (keepA && i === 0 ? name : `${name}2`));
export const reloadLabel = ({ tabs, keepA }: ResumePlan) =>
  keepA ? `Reload ${tabs.slice(1).join(" and ").replace(/Tab/g, "tab")}` : "Reload every tab";
/** The mutation's key: its mutationFn comes from `setMutationDefaults`, as TanStack requires for a restored mutation. */
const ADD = ["add-item"];

type ResumeStep = "start" | "offline" | "adding" | "saved" | "reloaded" | "online";

/** Each tab's app code, run at each load: the add-item mutation's defaults, a `sharedMutationFn`. */
function addItemDefaults(world: Replicas, replica: Replica, url: string) {
  const who = shortOf(replica.name);
  const client = replica.queryClient;
  client.setMutationDefaults(ADD, {
    mutationFn: sharedMutationFn(replica.store, () => ({ url, method: "POST", body: JSON.stringify({ name: "new" }) })),
    onSuccess: () => {
      world.narration.add({ text: `${who}'s mutation succeeded: it invalidates the list`, replica: who });
      return client.invalidateQueries({ queryKey: sharedQueryKey(replica.store, url).slice(0, 3) });
    },
  });
}

/** Tabs of one browser (one page's Web Locks, docs linked as BroadcastChannel links them) and its storage. */
function oneBrowser({ delayMs, url }: Args, tabs: string[]) {
  const world = createReplicas({ names: tabs, host: createSimulatedHost({ delayMs, respond: listResponder() }) });
  for (const r of world.replicas) addItemDefaults(world, r, url);
  return {
    world,
    storage: browserStorage(),
    destroy() {
      world.destroy();
      // The page's onlineManager is every story's: the next one starts online.
      onlineManager.setOnline(true);
    },
  };
}

/** Tab A's "Add an item": `useMutation({ mutationKey })`, its mutationFn the defaults'. */
function AddOffline({ world, enabled, onAdded }: { world: Replicas; enabled: boolean; onAdded: () => void }) {
  const add = useMutation({ mutationKey: ADD });
  const click = () => {
    world.narration.add({ text: "A adds an item (useMutation) while offline: TanStack pauses it", replica: "A" });
    add.mutate(undefined);
    onAdded();
  };
  return (
    <button type="button" onClick={click} disabled={!enabled}>
      Add an item
    </button>
  );
}

export function ResumeScenario({ delayMs, url, plan }: Args & { plan: ResumePlan }) {
  const { world, storage } = useDisposable(() => oneBrowser({ delayMs, url }, plan.tabs));
  const state = useSyncExternalStore(world.subscribe, world.getSnapshot, world.getSnapshot);
  const [step, setStep] = useState<ResumeStep>("start");
  const online = useRef(false);
  const say = (text: string) => world.narration.add({ text });
  const live = state.replicas.filter((r) => !state.closed.has(r.replicaId));
  // The reload waits for A's persister to have saved the paused mutation (a write, not a delay).
  const adding = useRef(false);
  useEffect(
    () =>
      storage.onWrite(() => {
        if (!adding.current || pausedSaved(storage) === 0) return;
        adding.current = false;
        world.narration.add({ text: "A's persister saved the paused mutation to the browser's storage", replica: "A" });
        setStep("saved");
      }),
    [world, storage],
  );
  const offline = () => {
    say("The browser goes offline (TanStack's onlineManager, which every tab's QueryClient reads)");
    onlineManager.setOnline(false);
    setStep("offline");
  };
  const reload = () => {
    const saved = pausedSaved(storage);
    const a = world.replicas[0];
    const old = world.getSnapshot().replicas.filter((r) => !world.getSnapshot().closed.has(r.replicaId) && !(plan.keepA && r === a));
    const who = plan.keepA
      ? `${old.map((r) => shortOf(r.name)).join(", ")} reload${old.length === 1 ? "s" : ""}; A stays open, its call still paused in its QueryClient`
      : "Every tab reloads";
    say(`${who}. The browser's storage holds ${saved} paused mutation${saved === 1 ? "" : "s"}, saved there by A's persister`);
    for (const r of old) {
      world.close(r);
      addItemDefaults(world, world.reload(r, `${r.name}2`), url);
    }
    // The old pages are gone: their QueryClients, unmounted by now (no persister listens), drop what they held.
    setTimeout(() => old.forEach((r) => r.queryClient.clear()), 0);
    setStep("reloaded");
  };
  const back = () => {
    online.current = true;
    say(
      plan.keepA
        ? "The browser is back online: A's QueryClient resumes the call it paused, each reloaded tab's the copy it restored"
        : "The browser is back online: every tab's QueryClient resumes its paused mutations",
    );
    onlineManager.setOnline(true);
    setStep("online");
  };
  const done = ({ state: s, host, summary }: VerdictContext) => {
    if (!online.current || host.inFlight > 0) return undefined;
    const tabs = s.replicas.filter((r) => !s.closed.has(r.replicaId));
    const posts = world.host.calls.filter((c) => c.method === "POST");
    const list = world.host.calls.filter((c) => c.method === "GET").at(-1)!;
    const told = world.narration.texts();
    const shown = tabs.every((r) => told.includes(`${shortOf(r.name)} shows ${1 + posts.length} items (host answer #${list.n})`));
    const settled = tabs.every((r) =>
      r.queryClient
        .getMutationCache()
        .getAll()
        .every((m) => m.state.status === "success"),
    );
    if (posts.length === 0 || !shown || !settled) return undefined;
    const keys = new Set(posts.flatMap((c) => c.headers["idempotency-key"] ?? [])).size;
    const by = [...new Set(posts.map((c) => c.from))].join(", ");
    const restored = tabs.slice(1).map((r) => shortOf(r.name));
    const how = plan.keepA
      ? `mutation paused in A (still open) and restored in ${restored.join(", ")}, resumed in ${tabs.length} tabs`
      : `paused mutation, restored and resumed in ${tabs.length} tabs`;
    return `The ${how}, reached the host as ${posts.length} POST${posts.length === 1 ? "" : "s"} (by ${by}, ${keys || "no"} Idempotency-Key${keys === 1 ? "" : "s"}), and every tab shows the new item; ${summary}.`;
  };
  return (
    <ScenarioFrame
      world={world}
      request={null}
      verdict={done}
      controls={
        <StepButtons
          step={step}
          buttons={[
            ["start", "Take the browser offline", offline],
            ["saved", reloadLabel(plan), reload],
            ["reloaded", "Bring the browser back online", back],
          ]}
        />
      }
      panes={
        <PaneRow>
          {live.map((r) => (
            <PersistedTab key={r.replicaId} world={world} replica={r} storage={storage}>
              <ListPane world={world} replica={r} options={sharedQueryOptions<ItemList>(r.store, url, { staleTime: 60_000 })}>
                <MutationStatus mutationKey={ADD} />
                {r === world.replicas[0] && (
                  <AddOffline
                    world={world}
                    enabled={step === "offline"}
                    onAdded={() => {
                      adding.current = true;
                      setStep("adding");
                    }}
                  />
                )}
              </ListPane>
            </PersistedTab>
          ))}
        </PaneRow>
      }
    >
      <SharedFetchDevtoolsPanel store={live[0]!.store} initialTab="timeline" style={{ marginTop: "1rem" }} />
    </ScenarioFrame>
  );
}
