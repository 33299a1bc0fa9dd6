/**
 * A sync server (y-websocket's through connectPeers, Hocuspocus through connectHocuspocus) that
 * sends a device a malformed frame (invariant 14: peers, and the server between them, are not
 * trusted to be well-formed): the device warns, naming the frame, keeps everything
 * recorded, throws nothing (into React or anywhere), and goes on hearing the other devices through
 * the same socket.
 */
import * as encoding from "lib0/encoding";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createSharedFetchStore } from "../../src/index.ts";
import { Host } from "../../sim/host.ts";
import { hocuspocusKit, peersKit, type Kit } from "./connector-kits.ts";
import { frameRelay } from "./frame-relay.ts";
import { until } from "./wait.ts";

const req = { url: "https://api.example.test/frames" };

/** A frame as a Hocuspocus server writes it: the room's name, then the message (`bytes`). */
function roomFrame(room: string, bytes: number[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, room);
  for (const b of bytes) encoding.writeUint8(encoder, b);
  return encoding.toUint8Array(encoder);
}

// [what the frame is, its bytes given the room, what the device's console says of it]
type Frames = [string, (room: string) => Uint8Array, RegExp][];
const peersFrames: Frames = [
  // These three threw out of the socket's message handler, and the device heard nothing more.
  [
    "garbage bytes",
    () => new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
    /connectPeers dropped a malformed message from "ws:\/\/127\.0\.0\.1:\d+": Error: Integer out of Range/,
  ],
  [
    "a sync step that does not exist",
    () => new Uint8Array([0, 7, 0]),
    /connectPeers dropped a malformed message from ".*": Error: Unknown message type/,
  ],
  [
    "a truncated awareness update",
    () => new Uint8Array([1, 3, 0xff, 0xff, 0xff]),
    /connectPeers dropped a malformed message from ".*": Error: Unexpected end of array/,
  ],
  // y-websocket and y-protocols catch these themselves and say so.
  ["a message type that does not exist", () => new Uint8Array([9, 1, 2, 3]), /Unable to compute message/],
  ["an update of garbage", () => new Uint8Array([0, 2, 5, 0xde, 0xad, 0xbe, 0xef, 0x00]), /Caught error while handling a Yjs update/],
];

const dropped = (what: string) =>
  new RegExp(`connectHocuspocus dropped a malformed message from "ws://127\\.0\\.0\\.1:\\d+": Error: ${what}`);

const hocuspocusFrames: Frames = [
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

const cases: [string, Kit, Frames][] = [
  [peersKit.name, peersKit, peersFrames],
  [hocuspocusKit.name, hocuspocusKit, hocuspocusFrames],
];

describe.each(cases)("%s: a malformed frame from the sync server", (_name, kit, frames) => {
  let server: Awaited<ReturnType<typeof kit.start>>;
  beforeAll(async () => {
    server = await kit.start();
  });
  afterAll(() => server.close());

  function device(url: string, room: string, host: Host, name: string) {
    const doc = new Y.Doc();
    const conn = kit.connect(doc, url, room);
    const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs(name), locks: null });
    return { doc, conn, store, stop: () => (store.destroy(), conn.destroy(), doc.destroy()) };
  }

  it.each(frames)(
    "%s: a warning names it; nothing recorded is lost; the next update still arrives",
    async (_what, frame, said) => {
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
