import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as encoding from "lib0/encoding";
import { connectPeers, connectionLostOrigin, type PeerConnection } from "../../src/sync/index.ts";
import { nextEvent, until } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(async () => {
  // close() also asserts that bin/sync-server.mjs exits with code 0 on SIGTERM.
  await server.close();
});

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

const uniqueRoom = (): string => `room-${Math.random().toString(36).slice(2)}`;

function openPeer(room: string, params?: Record<string, string>) {
  const doc = new Y.Doc();
  const conn: PeerConnection = connectPeers(doc, { url: server.url, room, params, WebSocketPolyfill: WebSocket });
  cleanups.push(() => {
    conn.destroy();
    doc.destroy();
  });
  return { doc, conn, map: doc.getMap<unknown>("m") };
}

const sharedFetchOf = (peer: ReturnType<typeof openPeer>, other: ReturnType<typeof openPeer>): unknown =>
  (peer.conn.awareness.getStates().get(other.doc.clientID) as { sharedFetch?: unknown } | undefined)?.sharedFetch;

describe("connectPeers through a y-websocket server", () => {
  it("syncs two docs in the same room both ways, and keeps other rooms apart", async () => {
    const room = uniqueRoom();
    const a = openPeer(room);
    const b = openPeer(room, { token: "secret-ish" });
    await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
    expect(b.conn.provider.url).toContain("?token=secret-ish");

    a.map.set("x", 1);
    await until(b.doc, "update", () => b.map.get("x") === 1);
    b.map.set("y", 2);
    await until(a.doc, "update", () => a.map.get("y") === 2);

    const stranger = openPeer(uniqueRoom());
    await stranger.conn.whenSynced;
    expect(stranger.map.toJSON()).toEqual({});

    const late = openPeer(room);
    await late.conn.whenSynced;
    expect(late.map.toJSON()).toEqual({ x: 1, y: 2 });
  });

  it("shows presence and reports its removal when a peer is destroyed", async () => {
    const room = uniqueRoom();
    const a = openPeer(room);
    const b = openPeer(room);
    a.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "ra", browserId: "ba" });
    b.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "rb", browserId: "bb" });
    await until(b.conn.awareness, "change", () => sharedFetchOf(b, a) !== undefined);
    await until(a.conn.awareness, "change", () => sharedFetchOf(a, b) !== undefined);
    expect(sharedFetchOf(b, a)).toEqual({ replicaId: "ra", browserId: "ba" });

    const removal = nextEvent<[{ removed: number[] }, unknown]>(b.conn.awareness, "change", (c) => c.removed.includes(a.doc.clientID));
    a.conn.destroy();
    const [, origin] = await removal;
    expect(origin).not.toBe(connectionLostOrigin); // a peer really left
    expect(b.conn.awareness.getStates().has(a.doc.clientID)).toBe(false);
  });

  it("marks presence dropped by its own lost connection with connectionLostOrigin", async () => {
    const room = uniqueRoom();
    const a = openPeer(room);
    const b = openPeer(room);
    a.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "ra", browserId: "ba" });
    b.conn.awareness.setLocalStateField("sharedFetch", { replicaId: "rb", browserId: "bb" });
    await until(b.conn.awareness, "change", () => sharedFetchOf(b, a) !== undefined);
    await until(a.conn.awareness, "change", () => sharedFetchOf(a, b) !== undefined);

    const lostLocally = nextEvent<[{ removed: number[] }, unknown]>(b.conn.awareness, "change", (c) => c.removed.includes(a.doc.clientID));
    const seenLeaving = nextEvent<[{ removed: number[] }, unknown]>(a.conn.awareness, "change", (c) => c.removed.includes(b.doc.clientID));
    b.conn.provider.disconnect(); // a partition, seen from b
    expect((await lostLocally)[1]).toBe(connectionLostOrigin);
    expect((await seenLeaving)[1]).not.toBe(connectionLostOrigin);

    b.conn.provider.connect();
    await until(a.conn.awareness, "change", () => sharedFetchOf(a, b) !== undefined);
    await until(b.conn.awareness, "change", () => sharedFetchOf(b, a) !== undefined);
  });

  it("the server removes the presence of a peer whose socket drops without a goodbye (a crash)", async () => {
    const room = uniqueRoom();
    const b = openPeer(room);
    await b.conn.whenSynced;
    // A bare client: it publishes presence, then its socket dies before it can say it leaves.
    const doc = new Y.Doc();
    const awareness = new Awareness(doc);
    cleanups.push(() => (awareness.destroy(), doc.destroy()));
    awareness.setLocalStateField("sharedFetch", { replicaId: "crashing", browserId: "bc" });
    const socket = new WebSocket(`${server.url}/${room}`);
    await new Promise((resolve) => socket.once("open", resolve));
    const update = encoding.createEncoder();
    encoding.writeVarUint(update, 1); // awareness message
    encoding.writeVarUint8Array(update, encodeAwarenessUpdate(awareness, [doc.clientID]));
    socket.send(encoding.toUint8Array(update));
    const presence = () => (b.conn.awareness.getStates().get(doc.clientID) as { sharedFetch?: unknown } | undefined)?.sharedFetch;
    await until(b.conn.awareness, "change", () => presence() !== undefined);

    const removal = nextEvent<[{ removed: number[] }, unknown]>(b.conn.awareness, "change", (c) => c.removed.includes(doc.clientID));
    socket.terminate();
    await removal;
    expect(presence()).toBeUndefined();
  });

  it("is visible again at once when the same doc reconnects after destroy (StrictMode remount)", async () => {
    const room = uniqueRoom();
    const b = openPeer(room);
    const doc = new Y.Doc();
    cleanups.push(() => doc.destroy());
    const presence = () => (b.conn.awareness.getStates().get(doc.clientID) as { sharedFetch?: unknown } | undefined)?.sharedFetch;
    const first = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });
    first.awareness.setLocalStateField("sharedFetch", { replicaId: "r1", browserId: "ba" });
    await until(b.conn.awareness, "change", () => presence() !== undefined);
    const left = nextEvent<[{ removed: number[] }]>(b.conn.awareness, "change", (c) => c.removed.includes(doc.clientID));
    first.destroy();
    await left;

    const second = connectPeers(doc, { url: server.url, room, WebSocketPolyfill: WebSocket });
    cleanups.push(() => second.destroy());
    second.awareness.setLocalStateField("sharedFetch", { replicaId: "r2", browserId: "ba" });
    await until(b.conn.awareness, "change", () => presence() !== undefined);
    expect(presence()).toEqual({ replicaId: "r2", browserId: "ba" });
  });

  it("resolves whenSynced on destroy even before the server answered", async () => {
    const doc = new Y.Doc();
    const conn = connectPeers(doc, { url: server.url, room: uniqueRoom(), WebSocketPolyfill: WebSocket });
    conn.destroy();
    await conn.whenSynced;
    doc.destroy();
  });

  it("asks for a WebSocketPolyfill where there is no global WebSocket", () => {
    expect(typeof globalThis.WebSocket).toBe("undefined"); // Node 20
    expect(() => connectPeers(new Y.Doc(), { url: server.url, room: uniqueRoom() })).toThrow(/WebSocketPolyfill/);
  });
});
