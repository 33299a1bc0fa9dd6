/**
 * shared-fetch as its README shows it: a doc, connectTabs (and connectPeers for devices), the
 * store created at once with default options — nothing awaited — and useSharedFetch with the
 * README example's query options (as every contender).
 */
// First: the probe's marks and fetch counter are set before any library runs.
import { api, appName, interval, mark, now, params, win } from "./probe.ts";
import { QueryClient } from "@tanstack/react-query";
import * as Y from "yjs";
import { createSharedFetchStore, SharedFetchProvider, useSharedFetch, type StoreEvent } from "../../../src/index.ts";
import { connectPeers, connectTabs } from "../../../src/sync/index.ts";
import { mount, queryOptionsFor } from "./app.tsx";

const ws = params.get("ws");
const doc = new Y.Doc();
const tabs = connectTabs(doc, { name: appName });
const peers = ws ? connectPeers(doc, { url: ws, room: params.get("room") ?? appName }) : null;
const store = createSharedFetchStore({ doc, awareness: peers ? peers.awareness : tabs.awareness });
mark("store");
// When the hook first asks (its query function runs after React's first commit).
const ensure = store.ensure.bind(store);
store.ensure = (...args: Parameters<typeof ensure>) => {
  mark("ensure");
  return ensure(...args);
};
void tabs.whenSynced.then(() => mark("tabsSynced"));
void peers?.whenSynced.then(() => mark("peersSynced"));
store.onEvent((event: StoreEvent) => {
  const at = now();
  win.__events.push({ at, ...event });
  mark(event.type, at);
});

const options = queryOptionsFor(interval);
mount(
  new QueryClient(),
  () => useSharedFetch(api, options),
  (children) => <SharedFetchProvider store={store}>{children}</SharedFetchProvider>,
);
