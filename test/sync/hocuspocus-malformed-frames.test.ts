/**
 * A Hocuspocus server that sends a device a malformed frame (invariant 14: peers, and the server
 * between them, are not trusted to be well-formed), as malformed-server-frames.test.ts for
 * connectPeers: the device warns, naming the server, keeps everything recorded, throws nothing
 * (into React or anywhere), and goes on hearing the other devices through the same socket.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { frameRelay } from "./frame-relay.ts";
import { roomFrame } from "./hocuspocus-frames.ts";
import { startHocuspocus } from "./ordered-devices.ts";
import { until } from "./wait.ts";

let server: Awaited<ReturnType<typeof startHocuspocus>>;
beforeAll(async () => {
  server = await startHocuspocus();
});
afterAll(() => server.close());

const req = { url: "https://api.example.test/hp-frames" };

function device(url: string, room: string, host: Host, name: string) {
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { url, room, token: "t", WebSocketPolyfill: WebSocket, reconnectDelayMs: 100 });
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null });
  return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
}

const dropped = (what: string) =>
  new RegExp(`connectHocuspocus dropped a malformed message from "ws://127\\.0\\.0\\.1:\\d+": Error: ${what}`);

// [what the frame is, its bytes given the room, what the device's console says of it]
const frames: [string, (room: string) => Uint8Array, RegExp][] = [
  [
    "garbage bytes",
    () => new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
    dropped("Integer out of Range"),
  ],
  ["a message type that does not exist", (room) => roomFrame(room, [99]), dropped("Can’t apply message of unknown type: 99")],
  ["a sync step that does not exist", (room) => roomFrame(room, [0, 7, 0]), dropped("Unknown message type")],
  ["a truncated awareness update", (room) => roomFrame(room, [1, 3, 0xff, 0xff, 0xff]), dropped("Unexpected end of array")],
  // A removal the device holds back before applying it (held-removals.ts), its next entry truncated:
  // it threw from a timer, out of reach of any handler.
  [
    "a peer's removal followed by a truncated entry",
    (room) => roomFrame(room, [1, 9, 2, 42, 1, 4, ..."null".split("").map((c) => c.charCodeAt(0)), 43]),
    dropped("Unexpected end of array"),
  ],
  // y-protocols catches this one itself and says so.
  ["an update of garbage", (room) => roomFrame(room, [0, 2, 5, 0xde, 0xad, 0xbe, 0xef, 0x00]), /Caught error while handling a Yjs update/],
];

describe("connectHocuspocus: a malformed frame from the server", () => {
  it.each(frames)(
    "%s: a warning names it; nothing recorded is lost; the next update still arrives",
    async (_what, frame, said) => {
      const relay = await frameRelay(server.url);
      const room = `hp-frames-${Math.random().toString(36).slice(2)}`;
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

        relay.inject(frame(room));
        // Sent behind the bad frame on the same socket: once b shows it, b has read the bad frame.
        const again = a.store.refetch(req);
        (await host.whenCalls(2))[1]!.respond(200, { n: 2 });
        await again;
        await vi.waitFor(() => expect(b.store.snapshot(req)).toMatchObject({ status: "success", data: { n: 2 } }), {
          timeout: 5000,
          interval: 10,
        });
        // A held removal is applied 100 ms after it came (RELAYED_REMOVAL_GRACE_MS).
        await vi.waitFor(() => {
          const lines = [...warn.mock.calls, ...error.mock.calls].map((args) => args.map(String).join(" "));
          expect(
            lines.some((line) => said.test(line)),
            lines.join("\n"),
          ).toBe(true);
        });

        expect(uncaught).toEqual([]);
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
    },
    15_000,
  );
});
