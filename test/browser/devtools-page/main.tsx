/**
 * The devtools browser page: one tab = one replica showing one shared request and the floating
 * devtools, open. Query string: api (required), tabs (connectTabs name), lease, tab (the panel's
 * first view), shell=1 (the panel as a plugin of the TanStack Devtools shell instead, beside
 * TanStack's own Query devtools' panel, loaded on demand). Built in production mode, so the panel comes from `devtools/production.ts`.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
import * as Y from "yjs";
import { SharedFetchDevtools, sharedFetchDevtoolsPlugin, type DevtoolsTab } from "../../../devtools/production.ts";
import { createSharedFetchStore, SharedFetchProvider, useSharedFetch } from "../../../src/index.ts";
import { connectTabs } from "../../../src/sync/index.ts";

type DevtoolsPageWindow = { __ready?: boolean; __errors: string[]; __replicaId?: string };
const win = window as unknown as DevtoolsPageWindow;
win.__errors = [];
window.addEventListener("error", (e) => win.__errors.push(String(e.error ?? e.message)));
window.addEventListener("unhandledrejection", (e) => win.__errors.push(`unhandled rejection: ${String(e.reason)}`));

const params = new URLSearchParams(location.search);
const api = new URL(params.get("api") ?? "/api/missing", location.href).href;
const lease = params.get("lease");

function App() {
  const { status, data } = useSharedFetch(api);
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", padding: "1rem" }}>
      <h1 style={{ fontSize: 18 }}>Report</h1>
      <p>
        status: <span data-testid="status">{status}</span>
      </p>
      <p>
        data: <span data-testid="data">{data === undefined ? "" : JSON.stringify(data)}</span>
      </p>
    </main>
  );
}

async function start(): Promise<void> {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: params.get("tabs") ?? "devtools-e2e" });
  await tabs.whenSynced;
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, ...(lease ? { leaseMs: Number(lease) } : {}) });
  win.__replicaId = store.replicaId;
  document.body.dataset.replica = store.replicaId;
  const initialTab = (params.get("tab") ?? "keys") as DevtoolsTab;
  const shell = params.get("shell") === "1";
  const Shell = shell ? (await import("@tanstack/react-devtools")).TanStackDevtools : undefined;
  // TanStack's own Query devtools beside the panel, as the README's shell shows them (production: this page is a production build).
  const QueryPanel = shell ? (await import("@tanstack/react-query-devtools/production")).ReactQueryDevtoolsPanel : undefined;
  createRoot(document.getElementById("root")!).render(
    <QueryClientProvider client={new QueryClient()}>
      <SharedFetchProvider store={store}>
        <App />
        {Shell ? (
          <Shell
            config={{ defaultOpen: true }}
            plugins={[
              ...(QueryPanel ? [{ name: "TanStack Query", render: <QueryPanel /> }] : []),
              sharedFetchDevtoolsPlugin({ store, awareness: tabs.awareness, initialTab, defaultOpen: true }),
            ]}
          />
        ) : (
          <SharedFetchDevtools store={store} awareness={tabs.awareness} initialIsOpen initialHeight={380} initialTab={initialTab} />
        )}
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  win.__ready = true;
}

start().catch((error: unknown) => win.__errors.push(`start failed: ${String(error)}`));
