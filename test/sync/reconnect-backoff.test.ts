/**
 * A sync server that refuses a device, however it refuses: nothing listening, an HTTP error at the
 * upgrade, or a socket accepted and dropped before its sync. The device reconnects with a growing,
 * capped delay (no tight loop), while a store on the doc waits for a key; destroy() stops the
 * attempts and leaves no socket and, once the back-off timer the provider armed has run out, no
 * timer. Fake timers: the delays between attempts are read on the fake clock, never measured.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { connectPeers, createSharedFetchStore } from "../../src/index.ts";
import { freePort } from "../../server/cluster/ports.ts";
import { Host } from "../../sim/host.ts";
import { frameRelay, type FrameRelay } from "./frame-relay.ts";
import { until } from "./wait.ts";
import { startSyncServer, type SyncServer } from "./ws-server.ts";

let server: SyncServer;
let relay: FrameRelay;
beforeAll(async () => {
  server = await startSyncServer();
});
afterAll(() => server.close());
afterEach(async () => {
  vi.useRealTimers();
  await relay?.close();
});

/** y-websocket's default cap (maxBackoffTime). */
const CAP_MS = 2500;
const ATTEMPTS = 10;

async function refusedDevice(url: string) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
  // On the fake clock, as they happen: when each attempt began and when each was refused.
  const began: number[] = [];
  const refused: number[] = [];
  const Counting = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      began.push(Date.now());
    }
  };
  const doc = new Y.Doc();
  const conn = connectPeers(doc, { url, room: "refused", WebSocketPolyfill: Counting });
  conn.provider.on("connection-close", () => refused.push(Date.now()));
  const host = new Host();
  const store = createSharedFetchStore({ doc, awareness: conn.awareness, fetch: host.fetchAs("a"), locks: null });
  // Asked while refused: its claim's wait for a sync must not connect past the back-off either.
  const asked = store.ensure({ url: "https://api.example.test/refused" });
  // Timers advanced in 50 ms steps, each step only once the last attempt was refused for real.
  while (began.length <= ATTEMPTS) {
    await until(conn.provider, "connection-close", () => refused.length === began.length);
    await vi.advanceTimersByTimeAsync(50);
  }
  const gaps = refused.slice(0, ATTEMPTS).map((at, i) => began[i + 1]! - at);
  return { doc, conn, store, host, gaps, asked, attempts: () => began.length };
}

function expectBackedOff(gaps: number[]): void {
  // 200, 400, 800, 1600, then the cap: each at least the one before, none shorter than 200 ms.
  for (const [i, gap] of gaps.entries()) {
    expect(gap).toBeGreaterThanOrEqual(Math.min(200 * 2 ** i, CAP_MS));
    expect(gap).toBeLessThanOrEqual(CAP_MS + 50);
  }
  expect(gaps.slice(-4).every((gap) => gap >= CAP_MS)).toBe(true);
}

async function destroyedLeavesNothing(device: Awaited<ReturnType<typeof refusedDevice>>, open: () => number): Promise<void> {
  const attempts = device.attempts();
  device.store.destroy();
  device.conn.destroy();
  device.doc.destroy();
  await expect(device.asked).rejects.toMatchObject({ name: "AbortError" });
  // The provider's back-off timer, armed before destroy, runs out and does nothing.
  await vi.advanceTimersByTimeAsync(10 * CAP_MS);
  expect(device.attempts()).toBe(attempts);
  expect(vi.getTimerCount()).toBe(0);
  expect(open()).toBe(0);
  // Offline, the device fetched on its own (nobody could be reached); destroy aborted it.
  expect(device.host.calls.map((call) => call.state)).toEqual(["aborted"]);
}

describe("reconnecting to a sync server that refuses", () => {
  it("nothing listens on its port: attempts back off to the cap; destroy() leaves no timer, no socket", async () => {
    const port = await freePort();
    const device = await refusedDevice(`ws://127.0.0.1:${port}`);
    expectBackedOff(device.gaps);
    await destroyedLeavesNothing(device, () => 0);
  }, 20_000);

  it("the upgrade is refused (HTTP 503): the same", async () => {
    relay = await frameRelay(server.url);
    relay.refuse = 503;
    const device = await refusedDevice(relay.url);
    expect(relay.attempts).toBe(ATTEMPTS + 1);
    expectBackedOff(device.gaps);
    await destroyedLeavesNothing(device, () => relay.open);
  }, 20_000);

  it("each socket is accepted and dropped before its sync: the same, no tight loop", async () => {
    relay = await frameRelay(server.url);
    relay.toClient = () => (relay.cut(), false);
    const device = await refusedDevice(relay.url);
    expectBackedOff(device.gaps);
    await destroyedLeavesNothing(device, () => relay.open);
  }, 20_000);
});
