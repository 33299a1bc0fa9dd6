/**
 * A sync server that sends a device a malformed frame (invariant 14: peers, and the server between
 * them, are not trusted to be well-formed): the device warns, naming the frame, keeps everything
 * recorded, throws nothing (into React or anywhere), and goes on hearing the other devices through
 * the same socket.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { frameRelay } from "./frame-relay.ts";
import { until } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(() => server.close());

const req = { url: "https://api.example.test/frames" };

function device(url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url, room, WebSocketPolyfill: WebSocket });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

// [what the frame is, its bytes, what the device's console says of it]
const frames: [string, number[], RegExp][] = [
  // These three threw out of the socket's message handler, and the device heard nothing more.
  [
    "garbage bytes",
    [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
    /connectPeers dropped a malformed message from "ws:\/\/127\.0\.0\.1:\d+": Error: Integer out of Range/,
  ],
  ["a sync step that does not exist", [0, 7, 0], /connectPeers dropped a malformed message from ".*": Error: Unknown message type/],
  [
    "a truncated awareness update",
    [1, 3, 0xff, 0xff, 0xff],
    /connectPeers dropped a malformed message from ".*": Error: Unexpected end of array/,
  ],
  // y-websocket and y-protocols catch these themselves and say so.
  ["a message type that does not exist", [9, 1, 2, 3], /Unable to compute message/],
  ["an update of garbage", [0, 2, 5, 0xde, 0xad, 0xbe, 0xef, 0x00], /Caught error while handling a Yjs update/],
];

describe("a malformed frame from the sync server", () => {
  it.each(frames)("%s: a warning names it; nothing recorded is lost; the next update still arrives", async (_what, bytes, said) => {
    const relay = await frameRelay(server.url);
    const room = `frames-${Math.random().toString(36).slice(2)}`;
    const host = new Host();
    const a = device(server.url, room, host, "a");
    const b = device(relay.url, room, host, "b");
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await Promise.all([a.conn.whenSynced, b.conn.whenSynced]);
      const asked = a.store.ensure(req);
      (await host.whenCalls(1))[0]!.respond(200, { n: 1 });
      await asked;
      await until(b.doc, "update", () => b.store.snapshot(req).status === "success");

      relay.inject(new Uint8Array(bytes));
      // Sent behind the bad frame on the same socket: once b shows it, b has read the bad frame.
      const again = a.store.refetch(req);
      (await host.whenCalls(2))[1]!.respond(200, { n: 2 });
      await again;
      await vi.waitFor(() => expect(b.store.snapshot(req)).toMatchObject({ status: "success", data: { n: 2 } }), {
        timeout: 5000,
        interval: 10,
      });

      expect(uncaught).toEqual([]);
      const said_ = [...warn.mock.calls, ...error.mock.calls].map((args) => args.map(String).join(" "));
      expect(
        said_.some((line) => said.test(line)),
        said_.join("\n"),
      ).toBe(true);
      expect(relay.attempts).toBe(1); // heard through the same socket, no reconnect
      expect(host.calls.map((call) => call.from)).toEqual(["a", "a"]);
    } finally {
      process.off("uncaughtException", onUncaught);
      warn.mockRestore();
      error.mockRestore();
      a.stop();
      b.stop();
      await relay.close();
    }
  });
});
