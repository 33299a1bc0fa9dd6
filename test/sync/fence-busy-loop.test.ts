/**
 * A fence's bounds (FENCE_TIMEOUT_MS, ECHO_GRACE_MS) measure the server's silence, not our own
 * event loop's lag. Under CPU load a long task can run past the bound while the server's answer,
 * sent long before, waits in the socket behind it; Node runs the overdue timer first. A plain
 * timer then gives the claim up as "order unknown" and it falls back to the doc's election: a
 * duplicate request where the fence would have ordered one (seen in claim-fence.test.ts, "four
 * devices…", under load: 19 of 20 keys fetched twice). Here the busy loop is simulated as in
 * settle-timer.test.ts: the clock jumps inside a task, and the answer is queued behind the bound.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import type { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { ECHO_GRACE_MS, FENCE_TIMEOUT_MS, probeTrips } from "../../src/sync/trip-probe.ts";

/** A busy event loop: the clock jumps forward inside a task, as a long task makes it. */
const block = (ms: number) => vi.setSystemTime(Date.now() + ms);

/** Just what probeTrips reads of a y-websocket provider, connected and in sync. */
function fakeProvider(doc: Y.Doc) {
  const sent: Uint8Array[] = [];
  const provider = {
    doc,
    wsconnected: true,
    synced: true,
    ws: { readyState: 1, send: (data: Uint8Array) => sent.push(data) },
    on: () => {},
    off: () => {},
    messageHandlers: [
      (encoder: encoding.Encoder, decoder: decoding.Decoder) => {
        syncProtocol.readSyncMessage(decoder, encoder, doc, provider);
      },
    ],
  };
  /** The server's message to us: a sync message, through the provider's handler. */
  const receive = (write: (encoder: encoding.Encoder) => void) => {
    const encoder = encoding.createEncoder();
    write(encoder);
    provider.messageHandlers[0]!(encoding.createEncoder(), decoding.createDecoder(encoding.toUint8Array(encoder)));
  };
  return { provider: provider as unknown as WebsocketProvider, sent, receive };
}

describe("a fence's bounds end only on a timer that fires on time", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("an answer queued behind a late FENCE_TIMEOUT_MS still orders the claim", () => {
    const doc = new Y.Doc();
    const { provider, sent, receive } = fakeProvider(doc);
    const trips = probeTrips(provider);
    const answers: boolean[] = [];
    expect(trips.fence((inOrder) => answers.push(inOrder))).toBe(true);
    expect(sent).toHaveLength(1); // our step 1
    const server = new Y.Doc();
    // Just before the bound, a long task (a render, four replicas' decisions) holds the loop for
    // 500 ms; the server's answer arrives meanwhile and is queued behind the overdue bound.
    setTimeout(() => {
      block(500);
      setTimeout(() => receive((encoder) => syncProtocol.writeSyncStep2(encoder, server)), 0);
    }, FENCE_TIMEOUT_MS - 1);
    vi.advanceTimersByTime(FENCE_TIMEOUT_MS + 100);
    expect(answers).toEqual([true]);
    trips.stop();
  });

  it("a server that never answers still gives the fence up once a check fires on time", () => {
    const { provider } = fakeProvider(new Y.Doc());
    const trips = probeTrips(provider);
    const answers: boolean[] = [];
    trips.fence((inOrder) => answers.push(inOrder));
    vi.advanceTimersByTime(FENCE_TIMEOUT_MS - 1);
    expect(answers).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual([false]);
    trips.stop();
  });

  it("our claim's echo queued behind a late ECHO_GRACE_MS still counts: the server is not taken for one that sends none", () => {
    const doc = new Y.Doc();
    doc.clientID = 7;
    const { provider, receive } = fakeProvider(doc);
    const trips = probeTrips(provider);
    const server = new Y.Doc();
    const answers: boolean[] = [];
    trips.fence((inOrder) => answers.push(inOrder));
    doc.getMap("claims").set("k", "ours"); // the claim, right behind the fence
    const claim = Y.encodeStateAsUpdate(doc);
    receive((encoder) => syncProtocol.writeSyncStep2(encoder, server)); // the fence's answer: our claim's echo is next
    expect(answers).toEqual([]);
    setTimeout(() => {
      block(500);
      setTimeout(() => receive((encoder) => syncProtocol.writeUpdate(encoder, claim)), 0);
    }, ECHO_GRACE_MS - 1);
    vi.advanceTimersByTime(ECHO_GRACE_MS + 100);
    expect(answers).toEqual([true]);
    // The echo was heard: a later fence waits for its claim's echo again (the grace did not
    // conclude "no echoes" from our loop's lag).
    const later: boolean[] = [];
    trips.fence((inOrder) => later.push(inOrder));
    doc.getMap("claims").set("k2", "ours");
    receive((encoder) => syncProtocol.writeSyncStep2(encoder, server));
    expect(later).toEqual([]);
    receive((encoder) => syncProtocol.writeUpdate(encoder, Y.encodeStateAsUpdate(doc)));
    expect(later).toEqual([true]);
    trips.stop();
  });
});
