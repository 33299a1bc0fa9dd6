#!/usr/bin/env node
// A y-websocket sync server for development and tests, shipped as the package's bin
// (`npx shared-fetch-server`, `npm run server` here): HOST/PORT env, default 127.0.0.1:1234
// (PORT=0 picks a free port; the log line names the real one). Rooms live in memory only.
//
// Our own few dozen lines on ws + y-protocols instead of @y/websocket-server: that package
// imports y-leveldb statically, which pulls leveldown, a native build nothing here uses. The wire
// protocol is the same (sync step 1/2 + updates, awareness), so y-websocket clients connect as is.
import http from "node:http";
import { WebSocketServer } from "ws";
import * as Y from "yjs";
import * as syncProtocol from "y-protocols/sync";
import * as awarenessProtocol from "y-protocols/awareness";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";

// Configured by HOST and PORT alone: `--port 4000` served quietly on 1234, `--help` started a server.
const [arg] = process.argv.slice(2);
if (arg === "--help" || arg === "-h") {
  console.log(`Usage: shared-fetch-server
A y-websocket sync server for development: rooms in memory, no authentication, no TLS.
Environment: HOST (default 127.0.0.1), PORT (default 1234; 0 picks a free port).`);
  process.exit(0);
}
if (arg !== undefined)
  stopAtStart(
    `takes no arguments, got ${JSON.stringify(arg)}: set HOST and PORT in the environment (e.g. PORT=4000 shared-fetch-server); --help says more`,
  );
const host = process.env.HOST || "127.0.0.1";
const portText = process.env.PORT || "1234";
// Checked whole: parseInt read "12abc" as 12 and served there; "abc" died in a stack trace.
const port =
  /^\d+$/.test(portText) && Number(portText) <= 65535
    ? Number(portText)
    : stopAtStart(`environment variable PORT must be an integer from 0 to 65535, got ${JSON.stringify(portText)}`);
const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
// A connection that misses a pong for this long is closed, so its presence is removed.
const PING_MS = 30_000;

/** @type {Map<string, { doc: Y.Doc, awareness: awarenessProtocol.Awareness, conns: Map<import("ws").WebSocket, Set<number>> }>} */
const rooms = new Map();

function message(type, write) {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

function send(room, conn, bytes) {
  if (conn.readyState !== conn.OPEN) return close(room, conn);
  conn.send(bytes, (error) => error && close(room, conn));
}

function close(room, conn) {
  const controlled = room.conns.get(conn);
  if (!controlled) return;
  room.conns.delete(conn);
  // The presence this connection published leaves with it: peers see the replica go at once.
  awarenessProtocol.removeAwarenessStates(room.awareness, [...controlled], null);
  conn.terminate();
}

function getRoom(name) {
  let room = rooms.get(name);
  if (room) return room;
  const doc = new Y.Doc();
  const awareness = new awarenessProtocol.Awareness(doc);
  awareness.setLocalState(null); // the server itself is no peer
  room = { doc, awareness, conns: new Map() };
  const current = room;
  doc.on("update", (update) => {
    const bytes = message(MESSAGE_SYNC, (e) => syncProtocol.writeUpdate(e, update));
    for (const conn of current.conns.keys()) send(current, conn, bytes);
  });
  awareness.on("update", ({ added, updated, removed }, origin) => {
    const controlled = current.conns.get(origin);
    if (controlled) {
      for (const id of added) controlled.add(id);
      for (const id of removed) controlled.delete(id);
    }
    const changed = added.concat(updated, removed);
    const bytes = message(MESSAGE_AWARENESS, (e) =>
      encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(awareness, changed)),
    );
    for (const conn of current.conns.keys()) send(current, conn, bytes);
  });
  rooms.set(name, room);
  return room;
}

function onMessage(room, conn, data) {
  try {
    const decoder = decoding.createDecoder(new Uint8Array(data));
    const type = decoding.readVarUint(decoder);
    if (type === MESSAGE_SYNC) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.readSyncMessage(decoder, encoder, room.doc, conn);
      // Only the type byte: nothing to answer (e.g. the message was an update).
      if (encoding.length(encoder) > 1) send(room, conn, encoding.toUint8Array(encoder));
    } else if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(room.awareness, decoding.readVarUint8Array(decoder), conn);
    }
  } catch (error) {
    // A malformed message from one client must not take the server down for the others.
    console.error("sync server: dropped a malformed message:", error);
    close(room, conn);
  }
}

function onConnection(conn, request) {
  // The room is the URL path, as y-websocket's WebsocketProvider sends it: ws://host/ROOM?params
  const name = (request.url ?? "/").slice(1).split("?")[0] ?? "";
  const room = getRoom(name);
  connectionsEver += 1;
  room.conns.set(conn, new Set());
  conn.binaryType = "arraybuffer";
  conn.on("message", (data) => onMessage(room, conn, data));
  let alive = true;
  conn.on("pong", () => (alive = true));
  const ping = setInterval(() => {
    if (!alive) return close(room, conn);
    alive = false;
    conn.ping();
  }, PING_MS);
  conn.on("close", () => {
    clearInterval(ping);
    close(room, conn);
  });
  send(
    room,
    conn,
    message(MESSAGE_SYNC, (e) => syncProtocol.writeSyncStep1(e, room.doc)),
  );
  const states = [...room.awareness.getStates().keys()];
  if (states.length > 0) {
    send(
      room,
      conn,
      message(MESSAGE_AWARENESS, (e) => encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(room.awareness, states))),
    );
  }
}

let connectionsEver = 0;
const server = http.createServer((request, response) => {
  // Connection counts (no room names, no content): how many sockets a browser holds, for tests and benchmarks.
  if (request.url === "/stats") {
    const open = [...rooms.values()].reduce((n, room) => n + room.conns.size, 0);
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify({ open, total: connectionsEver }));
    return;
  }
  response.writeHead(200, { "Content-Type": "text/plain" });
  response.end("okay");
});
const wss = new WebSocketServer({ noServer: true });
wss.on("connection", onConnection);
// Authenticate here before handleUpgrade when the doc crosses a trust boundary.
server.on("upgrade", (request, socket, head) => {
  wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
});

// `npm start` runs this beside Storybook: a taken port is one line saying what to do, not a stack.
server.once("error", (error) =>
  stopAtStart(
    error.code === "EADDRINUSE"
      ? `PORT=${port}: ${host}:${port} is already in use (another sync server?); set PORT to another port (PORT=0 picks a free one)`
      : `cannot listen on ${host}:${port}: ${error.message}`,
  ),
);
server.listen(port, host, () => {
  const address = server.address();
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  console.log(`y-websocket server listening on ws://${shown}:${address.port}`);
});

/** One line and exit 1: nothing runs yet that a stop would have to close. */
function stopAtStart(message) {
  console.error(`sync server: ${message}`);
  process.exit(1);
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  for (const client of wss.clients) client.terminate();
  wss.close();
  server.close();
  // Each room's awareness keeps a timer alive; without this the process never drains.
  for (const { doc, awareness } of rooms.values()) {
    awareness.destroy();
    doc.destroy();
  }
  rooms.clear();
  // Should something still hold the loop, do not hang the caller.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
