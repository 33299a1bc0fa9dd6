/**
 * One real tab of the "Real tabs" story: a page of its own (served at /real-tab/ by
 * .storybook/real-tab-plugin.ts), so its store has its own BroadcastChannel, IndexedDB and Web
 * Locks, as a browser tab does. Its HTTP is a real fetch to /api/ on this origin, answered through
 * Mock Service Worker by the story's counting host in the parent page (same origin, so the parent
 * is reachable); the parent narrates this tab's store.
 * Query: world (the parent's registry key), name ("A"), tabs (connectTabs name), lease, url.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useLayoutEffect } from "react";
import { setupWorker } from "msw/browser";
import { createRoot } from "react-dom/client";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchProvider, useSharedFetch, type SharedFetchStoreWithExtras } from "../../src/index.ts";
import { connectTabs } from "../../src/sync/index.ts";
import { createDevtoolsModel, type DevtoolsModel } from "../../devtools/production.ts";
import { MOCKED_API, mockedApi, workerFetch } from "../support/mocked-host.ts";
import { wrappable } from "../support/path-break.tsx";
import { stateText } from "../support/query-state.tsx";

/** What the parent page offers each tab (stories/real-tabs/real-tabs.tsx). */
export type RealTabsBridge = {
  fetchFor(name: string): typeof fetch;
  /** `model`: the tab's own devtools model (made in its realm, which holds its store's internals). */
  register(name: string, store: SharedFetchStoreWithExtras, model: DevtoolsModel): void;
};

export type TabWindow = Window & { __lied?: boolean; __store?: SharedFetchStoreWithExtras; __crash?: () => void };

const params = new URLSearchParams(location.search);
const name = params.get("name") ?? "?";
const url = params.get("url") ?? `${MOCKED_API}/report`;
const win = window as TabWindow;
const bridge = (window.parent as unknown as { __realTabs?: Record<string, RealTabsBridge> }).__realTabs?.[params.get("world") ?? ""];
win.__lied = false;
// The story's crash: a removed iframe still runs its pagehide listeners (the store releases its
// claims, connectTabs withdraws its presence), a killed renderer runs none. Chrome runs a window's
// pagehide listeners in the order they were added, capture or not: this one, added before the store
// and connectTabs add theirs, stops them, and only the browser letting go of the page's Web Locks tells.
let crashed = false;
addEventListener("pagehide", (event) => crashed && event.stopImmediatePropagation(), { capture: true });
win.__crash = () => (crashed = true);

function Tab() {
  const { status, fetchStatus, data, claim, error } = useSharedFetch(url);
  // "Not pending, no data" is the lie this library exists to prevent: remember if it was ever shown.
  useLayoutEffect(() => {
    if (status !== "pending" && data === undefined && error === undefined) win.__lied = true;
  });
  return (
    // A tab is a narrow iframe: a result's URL breaks after a "/" of its path (wrappable), and only
    // a segment longer than the line breaks where it must.
    <main style={{ fontFamily: "system-ui, sans-serif", fontSize: 13, margin: 8, overflowWrap: "anywhere" }} data-status={status}>
      <strong>Tab {name}</strong> <span style={{ color: "#5a6470" }}>{win.__store?.replicaId}</span>
      <div>
        status: <span data-testid="status">{stateText({ status, fetchStatus })}</span>
      </div>
      <div>
        claim: <span data-testid="claim">{claim ? (claim.mine ? "mine" : claim.replicaId) : "none"}</span>
      </div>
      <div>
        data: <span data-testid="data">{data === undefined ? "—" : wrappable(JSON.stringify(data))}</span>
      </div>
    </main>
  );
}

async function start(): Promise<void> {
  if (!bridge) throw new Error("real tab: open it from the Real tabs story (no bridge in the parent page)");
  // This tab's own fetch goes out for real; the service worker hands it back to this page's
  // handler, which passes it to the story's counting host in the parent page.
  const worker = setupWorker(...mockedApi(() => bridge.fetchFor(name)));
  await worker.start({ quiet: true, onUnhandledRequest: "bypass", serviceWorker: { url: "/mockServiceWorker.js" } });
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: params.get("tabs") ?? "real-tabs" });
  // Read what IndexedDB and the other tabs hold first, as an app would: a reload sees the claim.
  await tabs.whenSynced;
  const lease = Number(params.get("lease"));
  const store = createSharedFetchStore({
    doc,
    awareness: tabs.awareness,
    fetch: workerFetch(name),
    ...(lease > 0 ? { leaseMs: lease } : {}),
  });
  win.__store = store;
  bridge.register(name, store, createDevtoolsModel(store, { minNotifyIntervalMs: 0 }));
  createRoot(document.getElementById("root")!).render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SharedFetchProvider store={store}>
        <Tab />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
}

start().catch((error: unknown) => {
  document.body.textContent = `failed to start: ${String(error)}`;
});
