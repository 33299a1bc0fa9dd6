/**
 * The connectBrowser test page: one tab = one view of the browser's replica (a SharedWorker), or
 * a replica of its own with `worker=absent` (SharedWorker deleted before connectBrowser: the
 * forced fallback). Query string: api (required), tabs (the app name), lease, ws + room (peers),
 * worker=absent, worker=missing (a worker script that 404s). Renders status/data/claim into data-testid elements; window.__history holds
 * every rendered state, __storeStatuses the store's snapshot statuses, __events the store's events, __mode the store's mode, __idbOpens the
 * IndexedDB opens of this tab and of the workers (by worker name).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useLayoutEffect, useRef } from "react";
import { createRoot } from "react-dom/client";
import { connectBrowser, SharedFetchProvider, useSharedFetch, type StoreEvent } from "../../../src/index.ts";
import type { HistoryEntry } from "../page/types.ts";

type Win = {
  __history: HistoryEntry[];
  __storeStatuses: string[];
  __events: { at: number; type: string }[];
  __errors: string[];
  __ready?: boolean;
  __mode?: string;
  __modeReason?: string;
  __idbOpens: { tab: number; workers: Record<string, number> };
  __store?: unknown;
  /** What the workers announced (start, IndexedDB opens), with when this tab heard it. */
  __diag: Record<string, unknown>[];
  /** When this tab's store first held data for the page's request (epoch ms): delivery, not paint. */
  __dataAt?: number;
};
const win = window as unknown as Win;
const now = () => performance.timeOrigin + performance.now();
win.__history = [];
win.__events = [];
win.__errors = [];
win.__idbOpens = { tab: 0, workers: {} };
win.__diag = [];
window.addEventListener("error", (e) => win.__errors.push(String(e.error ?? e.message)));
window.addEventListener("unhandledrejection", (e) => win.__errors.push(`unhandled rejection: ${String(e.reason)}`));

const idbOpen = indexedDB.open.bind(indexedDB);
indexedDB.open = (name: string, version?: number) => {
  win.__idbOpens.tab += 1;
  return idbOpen(name, version);
};
new BroadcastChannel("e2e-diag").onmessage = (e: MessageEvent<{ worker: string; opens?: number }>) => {
  if (e.data.opens !== undefined) win.__idbOpens.workers[e.data.worker] = e.data.opens;
  win.__diag.push({ at: now(), ...e.data });
};

// When this tab learned that a worker died (its lifetime lock granted to this tab's watch): bench marks.
const request = navigator.locks.request.bind(navigator.locks) as (n: string, o: object, cb: (l: unknown) => unknown) => Promise<unknown>;
(navigator.locks as unknown as { request: typeof request }).request = (name, options, callback) =>
  request(name, options, (lock) => {
    if (name.startsWith("shared-fetch:worker:")) win.__diag.push({ at: now(), workerGone: name });
    return callback(lock);
  });

const params = new URLSearchParams(location.search);
const api = new URL(params.get("api") ?? "/api/missing", location.href).href;
const lease = params.get("lease");
const ws = params.get("ws");
if (params.get("worker") === "absent") delete (globalThis as { SharedWorker?: unknown }).SharedWorker;

function App() {
  const query = useSharedFetch(api, { staleTime: 60_000, retry: 0 });
  const { status, data, error, claim } = query;
  const last = useRef<HistoryEntry | undefined>(undefined);
  useLayoutEffect(() => {
    const entry: HistoryEntry = { at: now(), status, hasData: data !== undefined, mine: claim?.mine ?? null };
    const prev = last.current;
    if (!prev || prev.status !== entry.status || prev.hasData !== entry.hasData || prev.mine !== entry.mine) {
      win.__history.push(entry);
      last.current = entry;
    }
  });
  return (
    <main>
      <p>
        status: <span data-testid="status">{status}</span>
      </p>
      <p>
        data: <span data-testid="data">{data === undefined ? "" : JSON.stringify(data)}</span>
      </p>
      <p>
        error: <span data-testid="error">{error ? error.message : ""}</span>
      </p>
      <p>
        claim: <span data-testid="claim-replica">{claim?.replicaId ?? ""}</span> mine{" "}
        <span data-testid="claim-mine">{claim ? String(claim.mine) : ""}</span>
      </p>
    </main>
  );
}

const store = connectBrowser({
  name: params.get("tabs") ?? "e2e",
  ...(lease ? { leaseMs: Number(lease) } : {}),
  ...(ws ? { peers: { url: ws, room: params.get("room") ?? "e2e" } } : {}),
  standby: params.get("standby") !== "off",
  worker: (name) =>
    params.get("worker") === "missing"
      ? new SharedWorker(new URL("/no-such-worker.js", location.href), { type: "module", name })
      : params.get("worker") === "next-build"
        ? new SharedWorker(new URL("./next-build.worker.ts", import.meta.url), { type: "module", name })
        : params.get("worker") === "throws"
          ? new SharedWorker(new URL("./throws.worker.ts", import.meta.url), { type: "module", name })
          : new SharedWorker(new URL("./replica.worker.ts", import.meta.url), { type: "module", name }),
});
// Read when asked: a worker that fails to load turns the store into a tab replica later.
Object.defineProperty(win, "__mode", { get: () => store.mode });
Object.defineProperty(win, "__modeReason", { get: () => store.modeReason });
// The store's own statuses as the tab heard them (pending truthful below TanStack's status, which stays "pending" with no data whatever the store says).
win.__storeStatuses = [store.snapshot({ url: api }).status];
store.subscribe({ url: api }, () => {
  const status = store.snapshot({ url: api }).status;
  if (win.__storeStatuses.at(-1) !== status) win.__storeStatuses.push(status);
});
// Hidden tabs paint late (timers throttled); the store's own arrival time is what a visible tab would paint a frame later.
const off = store.subscribe({ url: api }, () => {
  if (store.snapshot({ url: api }).data === undefined) return;
  win.__dataAt = now();
  off();
});
win.__store = store;
store.onEvent((event: StoreEvent) => win.__events.push({ at: now(), ...event }));
document.body.dataset.replica = store.replicaId;
createRoot(document.getElementById("root")!).render(
  <QueryClientProvider client={new QueryClient()}>
    <SharedFetchProvider store={store}>
      <App />
    </SharedFetchProvider>
  </QueryClientProvider>,
);
win.__ready = true;
