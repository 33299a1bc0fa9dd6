#!/usr/bin/env node
// A y-websocket sync server for development and tests: HOST/PORT env, default 127.0.0.1:1234
// (PORT=0 picks a free port; the log line names the real one).
import http from "node:http";
import { WebSocketServer } from "ws";
import { docs, setupWSConnection } from "@y/websocket-server/utils";

const host = process.env.HOST || "127.0.0.1";
const port = Number.parseInt(process.env.PORT ?? "1234", 10);

const server = http.createServer((_request, response) => {
  response.writeHead(200, { "Content-Type": "text/plain" });
  response.end("okay");
});
const wss = new WebSocketServer({ noServer: true });
wss.on("connection", setupWSConnection);
// Authenticate here before handleUpgrade when the doc crosses a trust boundary.
server.on("upgrade", (request, socket, head) => {
  wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
});

server.listen(port, host, () => {
  const address = server.address();
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  console.log(`y-websocket server listening on ws://${shown}:${address.port}`);
});

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  for (const client of wss.clients) client.terminate();
  wss.close();
  server.close();
  // Each served doc keeps an awareness timer alive; without this the process never drains.
  for (const doc of docs.values()) {
    doc.awareness.destroy();
    doc.destroy();
  }
  docs.clear();
  // Should something still hold the loop, do not hang the caller.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
