/**
 * Issue 15, fallback: "each tab is a replica as today", with its connection to other devices as
 * the app configured it (y-websocket or Hocuspocus). A worker file connects Hocuspocus with
 * `serveBrowserReplica({ connectPeers })`; where the tab is its own replica (no SharedWorker, Web
 * Locks or worker factory, or the worker failed), connectBrowser's `connectPeers` connects the
 * tab's doc the same way. Before, the tab could only reach y-websocket (`peers`): a Hocuspocus app
 * fell back to a replica alone, and sent again what another device had already fetched. Real
 * Hocuspocus server and HTTP host on 127.0.0.1, fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import type { BrowserConfig } from "../../src/worker/protocol.ts";
import { CountingHost } from "../cluster/http-host.ts";
import { startHocuspocus } from "../sync/ordered-devices.ts";

let server: Awaited<ReturnType<typeof startHocuspocus>>;
let host: CountingHost;
beforeAll(async () => {
  [host, server] = await Promise.all([CountingHost.start(), startHocuspocus()]);
});
afterAll(async () => {
  await Promise.all([server.close(), host.close()]);
});

const hocuspocus = (room: string) => (doc: Y.Doc) =>
  connectHocuspocus(doc, { url: server.url, room, token: "t", WebSocketPolyfill: WebSocket as never });

it("a tab replica (no SharedWorker here) connects other devices through the app's connectPeers: another device's result answers it, no request", async () => {
  const room = `fallback-own-peers-${process.pid}-${Date.now()}`;
  const path = `/api/${room}`;
  const doc = new Y.Doc();
  const other = hocuspocus(room)(doc);
  const device = createSharedFetchStore({ doc, awareness: other.awareness, locks: null });
  const tab = connectBrowser({ name: room, worker: (name) => new SharedWorker(name), connectPeers: hocuspocus(room) });
  try {
    await other.whenSynced;
    expect((await device.ensure({ url: host.url(path) })).data).toEqual({ path, n: 1 });
    expect(tab.mode).toBe("tab");
    expect(tab.modeReason).toBe("no SharedWorker here");
    const seen = await tab.ensure({ url: host.url(path) });
    expect(seen.status).toBe("success");
    expect(seen.data).toEqual({ path, n: 1 });
    expect(host.count(path)).toBe(1);
  } finally {
    tab.destroy();
    device.destroy();
    other.destroy();
    doc.destroy();
  }
});

it("a tab replica calls connectPeers as the worker calls its own, (doc, config): one connector that reads the config serves both", async () => {
  // A JavaScript app's one connector for its worker file and its tabs: the room from config.name.
  // Called with the doc alone, it threw in the fallback and the tab's requests stayed pending.
  const room = `fallback-own-peers-config-${process.pid}-${Date.now()}`;
  const path = `/api/${room}`;
  const doc = new Y.Doc();
  const other = hocuspocus(room)(doc);
  const device = createSharedFetchStore({ doc, identity: "ada", awareness: other.awareness, locks: null });
  const configs: unknown[] = [];
  const connectPeers = (tabDoc: Y.Doc, config: BrowserConfig) => (configs.push(config), hocuspocus(config.name)(tabDoc));
  const peers = { url: "ws://127.0.0.1:9", room: "unused", params: { token: "t" } };
  const tab = connectBrowser({ name: room, identity: "ada", leaseMs: 4000, peers, connectPeers });
  try {
    await other.whenSynced;
    expect((await device.ensure({ url: host.url(path) })).data).toEqual({ path, n: 1 });
    await expect(tab.ensure({ url: host.url(path) })).resolves.toMatchObject({ status: "success", data: { path, n: 1 } });
    expect(host.count(path)).toBe(1);
    // What a worker's connector is given for this tab: its name, identity, leases and peers.
    expect(configs).toEqual([{ name: room, identity: "ada", leaseMs: 4000, peers }]);
  } finally {
    tab.destroy();
    device.destroy();
    other.destroy();
    doc.destroy();
  }
});

it("connectPeers that is no function is refused at the call, naming what came (a URL without its query)", () => {
  expect(() => connectBrowser({ name: "fallback-own-peers-bad", connectPeers: "wss://sync.example.com?token=s3cret" as never })).toThrow(
    'shared-fetch: connectPeers must be a function when given, got "wss://sync.example.com?…"',
  );
});

it("connectPeers that returns no connection (an async connector's promise) is refused naming what came; the tab's destroy throws nothing and closes its doc", async () => {
  const room = `fallback-own-peers-odd-${process.pid}-${Date.now()}`;
  const errors: unknown[][] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((...args) => void errors.push(args));
  let made: Y.Doc | undefined;
  let connection: ReturnType<ReturnType<typeof hocuspocus>> | undefined;
  // `async`: the connector is made (its socket opens) but the tab is handed a promise of it.
  const connectPeers = async (doc: Y.Doc) => ((made = doc), (connection = hocuspocus(room)(doc)));
  const tab = connectBrowser({ name: room, connectPeers: connectPeers as never });
  try {
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(String(errors[0]![0])).toContain("its requests stay pending");
    expect(String(errors[0]![1])).toContain("connectPeers must return a connection (or nothing), got a Promise");
    expect(tab.snapshot({ url: host.url(`/api/${room}`) }).status).not.toBe("success");
    // What it made is closed again: the connection the promise held was never handed over, the doc is.
    expect(made?.isDestroyed).toBe(true);
    expect(() => tab.destroy()).not.toThrow();
  } finally {
    spy.mockRestore();
    tab.destroy();
    (await connection)?.destroy?.();
  }
});

it("connectPeers that returns a URL in place of a connection is refused naming it (without its query)", async () => {
  const room = `fallback-own-peers-url-${process.pid}-${Date.now()}`;
  const errors: unknown[][] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((...args) => void errors.push(args));
  const tab = connectBrowser({ name: room, connectPeers: (() => "wss://sync.example.com?token=s3cret") as never });
  try {
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(String(errors[0]![1])).toContain('connectPeers must return a connection (or nothing), got "wss://sync.example.com?…"');
  } finally {
    spy.mockRestore();
    tab.destroy();
  }
});
