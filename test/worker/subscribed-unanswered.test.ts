// @vitest-environment jsdom
/**
 * A SharedWorker tab's key that is subscribed to and not asked for (a pane whose data is fresh,
 * a feed's page held) reads pending until the worker answers the subscription: the tab cannot tell
 * "nothing recorded" before. It must not stay pending once no worker will answer: a worker that
 * never answers within its bound makes the tab a replica of its own, whose snapshot it then reads
 * (idle where nobody works on the key and nothing is recorded, invariant 8). Real stores and
 * ports; FakeLocks; fake timers for the bound.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { WORKER_READY_MS } from "../../src/worker/worker-bounds.ts";
import { browser, cleanup, sharedWorkerHere } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/subscribed-unanswered";
afterEach(() => void vi.useRealTimers());

describe("a key subscribed to and never asked for, in a tab whose worker never answers", () => {
  it("reads pending until the bound, then the tab's own replica's idle (its listener told), never pending for good", async () => {
    vi.useFakeTimers();
    sharedWorkerHere();
    const channel = new MessageChannel();
    cleanup(() => (channel.port1.close(), channel.port2.close()));
    const worker = { port: channel.port1 as unknown as MessagePort, addEventListener: () => {} };
    const host = new Host();
    const store = connectBrowser({
      name: `su-${process.pid}`,
      worker: () => worker,
      locks: new FakeLocks().forTab("t"),
      fetch: host.fetch,
    });
    cleanup(() => store.destroy());
    const seen: string[] = [];
    const off = store.subscribe({ url: API }, () => seen.push(store.snapshot({ url: API }).status));
    expect(store.snapshot({ url: API }).status).toBe("pending");
    await vi.advanceTimersByTimeAsync(WORKER_READY_MS);
    expect(store.mode).toBe("tab");
    for (let i = 0; i < 100 && store.snapshot({ url: API }).status === "pending"; i++) await vi.advanceTimersByTimeAsync(10);
    expect(store.snapshot({ url: API }).status).toBe("idle");
    expect(seen.at(-1)).toBe("idle");
    expect(host.calls).toHaveLength(0);
    off();
  });
});

describe("a key subscribed to once the tab's store is destroyed (a pane mounting during a logout)", () => {
  it("reads idle, as before the store was destroyed a key never shown did: no worker will answer, nobody works on it", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { v: 1 } });
    const b = browser(host);
    const t = b.tab();
    await t.ensure({ url: `${API}/warm` });
    t.destroy();
    const off = t.subscribe({ url: API }, () => {});
    expect(t.snapshot({ url: API }).status).toBe("idle");
    off();
    const offProgram = t.subscribeProgram({ url: `${API}.ts` }, () => {});
    expect(t.programSnapshot({ url: `${API}.ts` }).status).toBe("idle");
    offProgram();
  });
});
