/**
 * shared-fetch as its README shows it: a doc, connectTabs (and connectPeers for devices), the
 * store created at once with default options — nothing awaited — and useSharedFetch with the
 * README example's query options (as every contender).
 */
// First: the probe's marks and fetch counter are set before any library runs.
import { appName, mark, params } from "./probe.ts";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../../src/index.ts";
import { connectPeers, connectTabs } from "../../../src/sync/index.ts";
import { mountSharedFetch } from "./shared-app.tsx";

// Every import evaluated: from here on, the page's own code runs.
mark("imported");

const ws = params.get("ws");
const doc = new Y.Doc();
const tabs = connectTabs(doc, { name: appName });
const peers = ws ? connectPeers(doc, { url: ws, room: params.get("room") ?? appName }) : null;
const store = createSharedFetchStore({ doc, awareness: peers ? peers.awareness : tabs.awareness });
void tabs.whenSynced.then(() => mark("tabsSynced"));
void peers?.whenSynced.then(() => mark("peersSynced"));
mountSharedFetch(store);
