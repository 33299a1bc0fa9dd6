/**
 * A Hocuspocus server that refuses a device, however it refuses, as reconnect-backoff.test.ts for
 * connectPeers: nothing listening, an HTTP error at the upgrade, or a socket accepted and dropped
 * before its first message (a proxy in front of an instance that is down). The device reconnects in no tight loop while a store
 * on the doc waits for a key; destroy() stops the attempts and leaves no socket and, once the
 * back-off timers armed before it have run out, no timer. Nor does a destroy() made while the
 * provider waits to reconnect a connection it lost. Fake timers: attempts are counted on the fake
 * clock, never measured.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectHocuspocus } from "../../src/hocuspocus/index.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { frameRelay, type FrameRelay } from "./frame-relay.ts";
import { DELAY_MS, FAKED, hocuspocusPerFile } from "./hocuspocus-per-file.ts";
import { nextEvent } from "./wait.ts";

const { server } = hocuspocusPerFile();
let relay: FrameRelay | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await relay?.close();
  relay = undefined;
});

function counting() {
  // On the fake clock, as they happen: when each attempt began.
  const began: number[] = [];
  const Counting = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      began.push(Date.now());
    }
  };
  return { began, Counting };
}

/** Fake time the refused device is watched for. */
const WATCHED_MS = 6000;

async function refusedDevice(url: string) {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const { began, Counting } = counting();
  const doc = new Y.Doc();
  const conn = connectHocuspocus(doc, { url, room: "hp-refused", token: "t", WebSocketPolyfill: Counting, reconnectDelayMs: DELAY_MS });
  const host = new Host();
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs("a"), locks: null });
  // Asked while refused: its claim's wait for a sync must not connect past the back-off either.
  const asked = store.ensure({ url: "https://api.example.test/hp-refused" });
  asked.catch(() => {}); // awaited at destroy
  // Timers advanced in 50 ms steps, each step only once the attempt under way was refused for real.
  for (let t = 0; t < WATCHED_MS; t += 50) {
    await vi.waitFor(() => expect(conn.websocket.status).toBe("disconnected"), { timeout: 5000, interval: 5 });
    await vi.advanceTimersByTimeAsync(50);
  }
  return { doc, conn, store, host, asked, attempts: () => began.length };
}

/** No tight loop: a socket per reconnectDelayMs at most (the retry loop's delays then grow). */
function expectNoTightLoop(attempts: number): void {
  expect(attempts).toBeGreaterThan(1);
  expect(attempts).toBeLessThanOrEqual(WATCHED_MS / DELAY_MS + 1);
}

async function destroyedLeavesNothing(device: Awaited<ReturnType<typeof refusedDevice>>, open: () => number): Promise<void> {
  const attempts = device.attempts();
  device.store.destroy();
  device.conn.destroy();
  device.doc.destroy();
  await expect(device.asked).rejects.toMatchObject({ name: "AbortError" });
  // The back-off timers armed before destroy run out and do nothing.
  await vi.advanceTimersByTimeAsync(60_000);
  expect(device.attempts()).toBe(attempts);
  expect(device.conn.websocket.shouldConnect).toBe(false);
  expect(vi.getTimerCount()).toBe(0);
  expect(open()).toBe(0);
}

describe("connectHocuspocus reconnecting to a server that refuses", () => {
  it("nothing listens on its port: no tight loop; destroy() leaves no timer, no socket", async () => {
    const port = await freePort();
    const device = await refusedDevice(`ws://127.0.0.1:${port}`);
    expectNoTightLoop(device.attempts());
    await destroyedLeavesNothing(device, () => 0);
  }, 30_000);

  it("the upgrade is refused (HTTP 503): the same", async () => {
    relay = await frameRelay(server().url);
    relay.refuse = 503;
    const device = await refusedDevice(relay.url);
    expectNoTightLoop(relay.attempts);
    await destroyedLeavesNothing(device, () => relay!.open);
  }, 30_000);

  it("each socket is accepted and dropped before its first message: the same, one retry loop (no storm)", async () => {
    relay = await frameRelay(server().url);
    const r = relay;
    r.toClient = () => (r.cut(), false);
    const device = await refusedDevice(r.url);
    expectNoTightLoop(r.attempts);
    await destroyedLeavesNothing(device, () => r.open);
  }, 30_000);

  it("a synced connection lost, then destroy() while the provider waits to reconnect: no socket is made again, no timer is left", async () => {
    relay = await frameRelay(server().url);
    const r = relay;
    const { began, Counting } = counting();
    const doc = new Y.Doc();
    const conn = connectHocuspocus(doc, {
      url: r.url,
      room: "hp-lost",
      token: "t",
      WebSocketPolyfill: Counting,
      reconnectDelayMs: DELAY_MS,
    });
    await conn.whenSynced;
    vi.useFakeTimers({ toFake: [...FAKED] });
    const lost = nextEvent(conn.websocket, "disconnect");
    r.cut();
    await lost;
    conn.destroy();
    doc.destroy();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(began).toHaveLength(1);
    expect(r.attempts).toBe(1);
    expect(conn.websocket.shouldConnect).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
