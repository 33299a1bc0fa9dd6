/**
 * The tab's own replica, for connectBrowser's tab mode: a chunk of its own (connectBrowser imports
 * it dynamically), so a tab the SharedWorker serves loads none of Yjs, the engine or the
 * connectors — it only shows what the worker's replica knows.
 */
import * as Y from "yjs";
import { createSharedFetchStore } from "../core/store.ts";
import type { SharedFetchStoreWithExtras } from "../core/store-extras.ts";
import { connectPeers } from "../sync/connect-peers.ts";
import { connectTabs } from "../sync/connect-tabs.ts";
import { connectionOrNothing, destroyEach, type Connection } from "../sync/connection.ts";
import type { LockManagerLike } from "../core/locks.ts";
import type { ConnectBrowserOptions } from "./connect-browser.ts";
import type { LocalReplica } from "./hand-over.ts";
import type { BrowserConfig } from "./protocol.ts";

/** connectTabs (+ connectPeers) and createSharedFetchStore, as the Usage section sets a tab up; destroy() disconnects too. */
export function tabReplica(options: ConnectBrowserOptions, identity: string, locks: LockManagerLike | null | undefined): LocalReplica {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: options.name, locks });
  let peers: Connection | undefined;
  const disconnect = () => {
    destroyEach([peers, tabs]);
    doc.destroy();
  };
  let store: SharedFetchStoreWithExtras;
  try {
    // The app's own connector (Hocuspocus, say) as its worker file has it, given what a worker's is
    // given for this tab (one connector that reads it serves both); else y-websocket to `peers`.
    const { name, leaseMs, programLeaseMs, peers: server } = options;
    const config: BrowserConfig = {
      name,
      identity,
      ...(leaseMs !== undefined && { leaseMs }),
      ...(programLeaseMs !== undefined && { programLeaseMs }),
      ...(server && { peers: server }),
    };
    // Refused unless a connection: a promise threw at destroy, into React's cleanup, before the
    // tabs' channel and the doc were closed.
    peers = connectionOrNothing(
      "shared-fetch",
      options.connectPeers ? options.connectPeers(doc, config) : server ? connectPeers(doc, server) : undefined,
    );
    store = createSharedFetchStore({
      doc,
      identity,
      // The tabs' (it follows the devices' from there): a tab on connectTabs alone hears only that one.
      awareness: tabs.awareness,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.programLeaseMs !== undefined ? { programLeaseMs: options.programLeaseMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      // null: none (Web Locks refused the tab), not the page's found again.
      ...(locks !== undefined ? { locks } : {}),
    });
  } catch (error) {
    // Made in part, it would hold a channel, a database and presence timers for nothing.
    disconnect();
    throw error;
  }
  const destroy = store.destroy;
  // The same object (the devtools find its internals by identity), told its connections.
  return Object.assign(store, {
    destroy: () => {
      destroy();
      disconnect();
    },
  });
}
