/**
 * A peer of `npm run bench:cluster` in a process of its own: a bare doc (no store) that joins the
 * bench's room and logs, for every update it receives, which peer's state advanced to which clock
 * and when (wall clock: performance.timeOrigin + now, which processes of one machine share). Its
 * event loop is not the one 50 peers keep busy, so its log times the wire — claimant, server,
 * relay — without the bench process's queueing. Driven over IPC by cluster-watcher.ts.
 */
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, type Connection } from "../src/index.ts";
import { connectHocuspocus } from "../src/hocuspocus/index.ts";

export type WatcherRequest =
  | { type: "join"; contender: "y-websocket" | "hocuspocus-cluster"; url: string; room: string; token: string }
  | { type: "log" }
  | { type: "leave" };
/** Log entries are [clientID, clock reached, wall time in ms]. */
export type WatcherReply =
  { type: "synced" } | { type: "log"; entries: [number, number, number][] } | { type: "left" } | { type: "error"; message: string };

if (!process.send) throw new Error("cluster-watcher-process: must be started with an IPC channel (child_process.fork)");
const send = (reply: WatcherReply): void => void process.send?.(reply);
const wall = (): number => performance.timeOrigin + performance.now();

let current: { doc: Y.Doc; conn: Connection; entries: [number, number, number][] } | undefined;

function leave(): void {
  current?.conn.destroy();
  current?.doc.destroy();
  current = undefined;
}

function join(m: Extract<WatcherRequest, { type: "join" }>): void {
  leave();
  const doc = new Y.Doc();
  const entries: [number, number, number][] = [];
  doc.on("afterTransaction", (tr: Y.Transaction) => {
    if (tr.local) return;
    const at = wall();
    tr.afterState.forEach((clock, client) => void (clock !== tr.beforeState.get(client) && entries.push([client, clock, at])));
  });
  const conn =
    m.contender === "y-websocket"
      ? connectPeers(doc, { url: m.url, room: m.room, WebSocketPolyfill: WebSocket })
      : connectHocuspocus(doc, { url: m.url, room: m.room, token: m.token, WebSocketPolyfill: WebSocket });
  current = { doc, conn, entries };
  conn.whenSynced.then(
    () => send({ type: "synced" }),
    (error: unknown) => send({ type: "error", message: `watcher could not sync ${m.room} on ${m.url}: ${String(error)}` }),
  );
}

process.on("message", (message: unknown) => {
  const m = message as WatcherRequest | null;
  if (m?.type === "join" && typeof m.url === "string" && typeof m.room === "string" && typeof m.token === "string") join(m);
  else if (m?.type === "log") send({ type: "log", entries: current?.entries ?? [] });
  else if (m?.type === "leave") {
    leave();
    send({ type: "left" });
  } else send({ type: "error", message: `cluster-watcher-process: expected a join, log or leave message, got ${JSON.stringify(message)}` });
});
process.on("disconnect", () => (leave(), process.exit(0)));
