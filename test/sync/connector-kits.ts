/**
 * The two device connectors under one shape, for the network-fault tests that hold for both:
 * connectPeers through a y-websocket server, connectHocuspocus through a Hocuspocus server, each
 * run on 127.0.0.1 (a fresh one on `port` when given, e.g. to restart it there).
 */
import { Server } from "@hocuspocus/server";
import * as decoding from "lib0/decoding";
import WebSocket from "ws";
import type * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { connectPeers, type Connection, type WebSocketConstructor } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { nextEvent } from "./wait.ts";
import { startSyncServer } from "./ws-server.ts";

export type Kit = {
  name: "connectPeers" | "connectHocuspocus";
  start(port?: number): Promise<{ url: string; close(): Promise<void> }>;
  connect(doc: Y.Doc, url: string, room: string, WebSocketPolyfill?: WebSocketConstructor): Connection;
  /** The app's deliberate disconnect, and whether the provider still wants a connection. */
  disconnect(conn: Connection): void;
  shouldConnect(conn: Connection): boolean;
  /** Resolves at the connection's next closed socket. */
  closed(conn: Connection): Promise<unknown>;
  /** Resolves at the connection's next sync (a reconnect's). */
  synced(conn: Connection): Promise<unknown>;
  /** Whether a frame of this server's protocol is a sync step 2. */
  isStep2(frame: Uint8Array): boolean;
};

type Emitter = Parameters<typeof nextEvent>[0];

export const peersKit: Kit = {
  name: "connectPeers",
  start: (port) => startSyncServer(undefined, port),
  connect: (doc, url, room, WebSocketPolyfill = WebSocket) => connectPeers(doc, { url, room, WebSocketPolyfill }),
  disconnect: (conn) => (conn as ReturnType<typeof connectPeers>).provider.disconnect(),
  shouldConnect: (conn) => (conn as ReturnType<typeof connectPeers>).provider.shouldConnect,
  closed: (conn) => nextEvent((conn as ReturnType<typeof connectPeers>).provider, "connection-close"),
  synced: (conn) => nextEvent((conn as ReturnType<typeof connectPeers>).provider, "sync", (s: boolean) => s),
  isStep2: (frame) => frame[0] === 0 && frame[1] === 1,
};

export const hocuspocusKit: Kit = {
  name: "connectHocuspocus",
  async start(port) {
    const at = port ?? (await freePort());
    const server = new Server({ port: at, address: "127.0.0.1", quiet: true, stopOnSignals: false });
    await server.listen();
    return { url: `ws://127.0.0.1:${at}`, close: () => server.destroy() };
  },
  connect: (doc, url, room, WebSocketPolyfill = WebSocket) =>
    connectHocuspocus(doc, { url, room, token: "t", WebSocketPolyfill, reconnectDelayMs: 100 }),
  disconnect: (conn) => (conn as ReturnType<typeof connectHocuspocus>).websocket.disconnect(),
  shouldConnect: (conn) => (conn as ReturnType<typeof connectHocuspocus>).websocket.shouldConnect,
  closed: (conn) => nextEvent((conn as ReturnType<typeof connectHocuspocus>).websocket as unknown as Emitter, "disconnect"),
  synced: (conn) => nextEvent((conn as ReturnType<typeof connectHocuspocus>).provider as unknown as Emitter, "synced"),
  isStep2(frame) {
    // The room's name comes first in every Hocuspocus frame.
    const decoder = decoding.createDecoder(frame);
    try {
      decoding.readVarString(decoder);
      return decoding.readVarUint(decoder) === 0 && decoding.readVarUint(decoder) === 1;
    } catch {
      return false;
    }
  },
};

export const kits = [peersKit, hocuspocusKit];
