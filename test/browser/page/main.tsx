/**
 * The browser test page: one tab = one replica. Config comes from the query string:
 *   api       URL of the shared request (relative to the page is fine)         (required)
 *   tabs      connectTabs name (BroadcastChannel group + IndexedDB database)   (default "e2e")
 *   lease     leaseMs of the store                                             (default: store's)
 *   ws, room  y-websocket server URL and room: also connectPeers when given
 *   presence  "tabs" | "peers": whose awareness the store watches  (default: peers when ws is set)
 *   start     "manual": the request starts only when the test calls window.__start()
 *   stale     staleTime in ms (default 60000: tabs opened one after another reuse the result)
 *   interval  refetchInterval in ms (with refetchIntervalInBackground)
 *   retry, retryDelay  TanStack's retry options (default retry 0)
 *   lib       "shared" (default), "tanstack" (plain useQuery, each tab fetches) or "broadcast"
 *             (plain useQuery + @tanstack/query-broadcast-client-experimental): bench contenders
 * window.__client is the tab's QueryClient, __invalidate() invalidates the shared query and
 * __mutate() posts through sharedMutationFn and then invalidates (the mutation pattern).
 * It renders status/data/claim into data-testid elements and records, in window.__history, every
 * rendered state, and in window.__events every store event, each with an epoch timestamp.
 */
import { broadcastQueryClient } from "@tanstack/query-broadcast-client-experimental";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import * as Y from "yjs";
import {
  createSharedFetchStore,
  sharedMutationFn,
  sharedQueryKey,
  SharedFetchProvider,
  useSharedFetch,
  type StoreEvent,
} from "../../../src/index.ts";
import { connectPeers, connectTabs } from "../../../src/sync/index.ts";
import type { HistoryEntry, PageWindow } from "./types.ts";
import { internalsOf } from "../../../src/internals.ts";

const win = window as unknown as PageWindow;
const now = () => performance.timeOrigin + performance.now();
win.__history = [];
win.__events = [];
win.__errors = [];
win.__claimLog = [];
win.__updates = [];
win.__marks = {};
window.addEventListener("error", (e) => win.__errors.push(String(e.error ?? e.message)));
window.addEventListener("unhandledrejection", (e) => win.__errors.push(`unhandled rejection: ${String(e.reason)}`));

const params = new URLSearchParams(location.search);
const api = new URL(params.get("api") ?? "/api/missing", location.href).href;
const tabsName = params.get("tabs") ?? "e2e";
const lease = params.get("lease");
const ws = params.get("ws");
const room = params.get("room") ?? tabsName;
const presence = params.get("presence") ?? (ws ? "peers" : "tabs");

const stale = Number(params.get("stale") ?? 60_000);
const interval = params.get("interval") ? Number(params.get("interval")) : undefined;
const lib = params.get("lib") ?? "shared";
const queryOptions = {
  staleTime: stale,
  retry: Number(params.get("retry") ?? 0),
  retryDelay: Number(params.get("retryDelay") ?? 0),
  ...(interval ? { refetchInterval: interval, refetchIntervalInBackground: true } : {}),
};

/** The contender's hook: useSharedFetch, or plain useQuery with the page's fetch (bench). */
function useQueryFor(url: string | null) {
  const shared = lib === "shared";
  const plain = useQuery({
    queryKey: ["plain", url],
    queryFn: async () => (await fetch(url!, { cache: "no-store" })).json() as Promise<unknown>,
    enabled: !shared && url !== null,
    ...queryOptions,
  });
  const ours = useSharedFetch(shared ? url : null, queryOptions);
  return shared ? ours : plain;
}

function App() {
  // start=manual: the hook stays disabled until the test calls window.__start() (so several
  // devices that are already up can ask at the same moment).
  const [started, setStarted] = useState(params.get("start") !== "manual");
  useEffect(() => {
    win.__start = () => setStarted(true);
  }, []);
  const query = useQueryFor(started ? api : null);
  const { status, data, error } = query;
  const claim = "claim" in query ? query.claim : undefined;
  const last = useRef<HistoryEntry | undefined>(undefined);
  // Every committed state, deduplicated: what the user could have seen.
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
        <span data-testid="claim-mine">{claim ? String(claim.mine) : ""}</span> stale{" "}
        <span data-testid="claim-stale">{claim ? String(claim.stale) : ""}</span>
      </p>
    </main>
  );
}

async function start(): Promise<void> {
  const doc = new Y.Doc();
  win.__marks.boot = now();
  const tabs = connectTabs(doc, { name: tabsName });
  const peers = ws ? connectPeers(doc, { url: ws, room }) : null;
  // Where each doc update came from, and when (for diagnosing sync delays).
  doc.on("update", (update: Uint8Array, origin: unknown) => {
    const from =
      origin === tabs
        ? "tabs"
        : peers && origin === peers.provider
          ? "ws"
          : origin === "shared-fetch"
            ? "local"
            : typeof origin === "string"
              ? origin
              : "other";
    win.__updates.push({ at: now(), from, bytes: update.byteLength });
  });
  void tabs.whenSynced.then(() => (win.__marks.tabsSynced = now()));
  void peers?.whenSynced.then(() => (win.__marks.peersSynced = now()));
  // The tab reads what IndexedDB (and the sync server) hold before it decides anything, like an
  // app would: a tab opened after a crash then sees the crashed tab's claim. `store=at-once`: as
  // the README's Usage, nothing awaited (the store itself waits for the sync before it claims).
  if (params.get("store") !== "at-once") await Promise.all([tabs.whenSynced, peers?.whenSynced]);
  win.__marks.store = now();
  const store = createSharedFetchStore({
    doc,
    awareness: presence === "peers" && peers ? peers.awareness : tabs.awareness,
    ...(lease ? { leaseMs: Number(lease) } : {}),
  });
  store.onEvent((event: StoreEvent) => win.__events.push({ at: now(), ...event }));
  // Every change of the claims this tab sees (its own writes and synced ones): who holds each key.
  internalsOf(store).records.claims.onChange((keys: Set<string>) => {
    const at = now();
    // Observers run inside the writer's transaction: read after it.
    queueMicrotask(() => {
      for (const key of keys) {
        const holder = internalsOf(store).records.claims.get(key)?.replicaId ?? null;
        const recorded =
          internalsOf(store).records.results.get(key) !== undefined || internalsOf(store).records.errors.get(key) !== undefined;
        win.__claimLog.push({ at, key, holder, mine: holder === store.replicaId, recorded });
      }
    });
  });
  win.__replicaId = store.replicaId;
  win.__store = store;
  const queryClient = new QueryClient();
  win.__client = queryClient;
  if (lib === "broadcast") broadcastQueryClient({ queryClient: queryClient as never, broadcastChannel: `bench-${tabsName}` });
  const key = sharedQueryKey(store, { url: api });
  win.__invalidate = () => queryClient.invalidateQueries({ queryKey: key.slice(0, 3) });
  const post = sharedMutationFn(store, (n: number) => ({ url: `${api}/add`, method: "POST", body: JSON.stringify({ n }) }));
  win.__mutate = async () => {
    await post(Date.now());
    await win.__invalidate!();
  };
  document.body.dataset.replica = store.replicaId;
  createRoot(document.getElementById("root")!).render(
    <QueryClientProvider client={queryClient}>
      <SharedFetchProvider store={store}>
        <App />
      </SharedFetchProvider>
    </QueryClientProvider>,
  );
  win.__ready = true;
}

start().catch((error: unknown) => win.__errors.push(`start failed: ${String(error)}`));
