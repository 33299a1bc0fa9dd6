/**
 * A y-websocket server in the page, for scenarios about devices: each device runs the real
 * `connectPeers` (y-websocket's provider, the store's connector with its reconnect wait) over a
 * socket of this file's that speaks the y-websocket protocol (sync and awareness, as
 * @y/websocket-server does) to an in-page room. A device's link can go down — its open socket
 * closes as a dropped connection does, and each reconnect is refused — and come back up; the
 * provider then finds the server again at its own back-off, or at once when a claim asks for it.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import type { WebSocketConstructor } from "../../src/index.ts";

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;

type Conn = { socket: InPageSocket; device: string; clients: Set<number> };
type Room = { doc: Y.Doc; awareness: awarenessProtocol.Awareness; conns: Set<Conn> };

/** The part of a browser WebSocket y-websocket uses. */
class InPageSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = 0;
  binaryType = "arraybuffer";
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: ArrayBuffer }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  /** Set by the server: where this socket's frames go, and what closing it tells the server. */
  toServer: ((data: Uint8Array) => void) | undefined;
  left: (() => void) | undefined;

  send(data: Uint8Array | ArrayBuffer): void {
    if (this.readyState !== this.OPEN) return;
    this.toServer?.(new Uint8Array(data).slice());
  }

  close(): void {
    if (this.readyState >= this.CLOSING) return;
    this.readyState = this.CLOSED;
    this.left?.();
    this.onclose?.({ code: 1000, reason: "" });
  }
}

export class InPageSyncServer {
  /** One way, per frame (ms): the loopback of a real server, so a sync is never instantaneous. */
  latencyMs = 5;
  private readonly rooms = new Map<string, Room>();
  private readonly offline = new Set<string>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** The WebSocket constructor of one device (pass it to connectPeers as `WebSocketPolyfill`). */
  socketFor(device: string): WebSocketConstructor {
    const connect = (socket: InPageSocket, url: string) => {
      const room = new URL(url).pathname.split("/").filter(Boolean).at(-1) ?? "";
      this.later(() => this.accept(socket, device, room));
    };
    return class extends InPageSocket {
      constructor(url: string) {
        super();
        connect(this, url);
      }
    };
  }

  /** The device's link goes down: its socket closes as a dropped connection does; reconnects are refused. */
  goOffline(device: string): void {
    this.offline.add(device);
    for (const room of this.rooms.values())
      for (const conn of [...room.conns])
        if (conn.device === device) {
          this.leave(room, conn);
          conn.socket.readyState = conn.socket.CLOSED;
          this.later(() => conn.socket.onclose?.({ code: 1006, reason: "link down" }));
        }
  }

  goOnline(device: string): void {
    this.offline.delete(device);
  }

  destroy(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const room of this.rooms.values()) {
      room.awareness.destroy();
      room.doc.destroy();
    }
    this.rooms.clear();
  }

  private later(run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, this.latencyMs);
    this.timers.add(timer);
  }

  private roomOf(name: string): Room {
    const found = this.rooms.get(name);
    if (found) return found;
    const doc = new Y.Doc();
    const awareness = new awarenessProtocol.Awareness(doc);
    awareness.setLocalState(null);
    const room: Room = { doc, awareness, conns: new Set() };
    doc.on("update", (update: Uint8Array) => {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.writeUpdate(encoder, update);
      this.broadcast(room, encoding.toUint8Array(encoder));
    });
    awareness.on("update", ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
      const conn = [...room.conns].find((c) => c === origin);
      if (conn) {
        for (const id of [...added!, ...updated!]) conn.clients.add(id);
        for (const id of removed!) conn.clients.delete(id);
      }
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
      encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, [...added!, ...updated!, ...removed!]));
      this.broadcast(room, encoding.toUint8Array(encoder));
    });
    this.rooms.set(name, room);
    return room;
  }

  private accept(socket: InPageSocket, device: string, roomName: string): void {
    if (socket.readyState !== socket.CONNECTING) return;
    if (this.offline.has(device)) {
      socket.readyState = socket.CLOSED;
      socket.onerror?.({ type: "error" });
      socket.onclose?.({ code: 1006, reason: "link down" });
      return;
    }
    const room = this.roomOf(roomName);
    const conn: Conn = { socket, device, clients: new Set() };
    room.conns.add(conn);
    socket.toServer = (data) => this.later(() => room.conns.has(conn) && this.receive(room, conn, data));
    socket.left = () => this.leave(room, conn);
    socket.readyState = socket.OPEN;
    socket.onopen?.({ type: "open" });
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(encoder, room.doc);
    this.send(conn, encoding.toUint8Array(encoder));
    const states = [...room.awareness.getStates().keys()];
    if (states.length) {
      const aware = encoding.createEncoder();
      encoding.writeVarUint(aware, MESSAGE_AWARENESS);
      encoding.writeVarUint8Array(aware, awarenessProtocol.encodeAwarenessUpdate(room.awareness, states));
      this.send(conn, encoding.toUint8Array(aware));
    }
  }

  private receive(room: Room, conn: Conn, data: Uint8Array): void {
    const decoder = decoding.createDecoder(data);
    const type = decoding.readVarUint(decoder);
    if (type === MESSAGE_SYNC) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.readSyncMessage(decoder, encoder, room.doc, conn);
      if (encoding.length(encoder) > 1) this.send(conn, encoding.toUint8Array(encoder));
    } else if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(room.awareness, decoding.readVarUint8Array(decoder), conn);
    }
  }

  /** The connection is gone: its presence leaves the room, as the server tells the others. */
  private leave(room: Room, conn: Conn): void {
    if (!room.conns.delete(conn)) return;
    awarenessProtocol.removeAwarenessStates(room.awareness, [...conn.clients], null);
  }

  private send(conn: Conn, data: Uint8Array): void {
    this.later(() => {
      if (conn.socket.readyState === conn.socket.OPEN) conn.socket.onmessage?.({ data: data.slice().buffer });
    });
  }

  private broadcast(room: Room, data: Uint8Array): void {
    for (const conn of room.conns) this.send(conn, data);
  }
}
