/**
 * The retention tests' set-up: a device whose wall clock runs hours behind writes a result into
 * the doc, a tab of this browser meets it and persists it, and a reloaded tab on connectTabs alone
 * loads it and sweeps. Real stores and connectors; connectPeers on a real y-websocket server.
 */
import { expect, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, connectTabs, createSharedFetchStore, type Connection, type SharedRequest } from "../../src/index.ts";
import type { Host } from "../../sim/host.ts";
import type { SyncServer } from "./ws-server.ts";

export const HOUR = 3600_000;
export const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

/** connectPeers on `server`'s `room`, for each device of a test. */
export const peersOn = (server: SyncServer, room: string) => (doc: Y.Doc) =>
  connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });

/**
 * Device B, whose wall clock runs `hours` behind: its result for `request` says it was fetched
 * that long ago. On `peersOf`'s server once synced there, or on a doc of its own without it.
 */
export async function deviceBehind(host: Host, hours: number, request: SharedRequest, peersOf?: (doc: Y.Doc) => Connection) {
  const real = Date.now.bind(Date);
  const skew = vi.spyOn(Date, "now").mockImplementation(() => real() - hours * HOUR);
  const doc = new Y.Doc();
  const peers = peersOf?.(doc);
  const store = createSharedFetchStore({ doc, awareness: peers?.awareness, fetch: host.fetchAs("b"), locks: null });
  await peers?.whenSynced;
  await store.ensure(request);
  skew.mockRestore();
  return {
    doc,
    destroy: () => {
      store.destroy();
      peers?.destroy();
      doc.destroy();
    },
  };
}

/**
 * This browser's tab on database `name`, on connectTabs and `peersOf`, until it shows `request`'s
 * result `data` (the device's) and has had time to persist it; then closed.
 */
export async function tabMeets(name: string, host: Host, peersOf: (doc: Y.Doc) => Connection, request: SharedRequest, data: unknown) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  const peers = peersOf(doc);
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs("a"), locks: null });
  try {
    await vi.waitFor(() => expect(store.snapshot(request)).toMatchObject({ status: "success", data }), { timeout: 5000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 100)); // IndexedDB's write
  } finally {
    store.destroy();
    peers.destroy();
    tabs.destroy();
    doc.destroy();
  }
}

/** A tab reloaded on database `name`, on connectTabs alone, sweeping what nobody asked for in an hour. */
export function reloadedTab(name: string, host: Host, who: string) {
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name });
  const store = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetchAs(who), locks: null, retentionMs: HOUR });
  return {
    tabs,
    store,
    destroy: () => {
      store.destroy();
      tabs.destroy();
      doc.destroy();
    },
  };
}
