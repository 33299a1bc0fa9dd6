/**
 * `workerTimeoutMs: Infinity` says "never give up on the worker" (keep one socket and one
 * IndexedDB connection per browser, however slow the worker is to start). setTimeout runs a
 * delay of Infinity, or any past 2^31 - 1 ms, at once: such a tab became a replica of its own at
 * its first hello ("did not answer within Infinity ms"). Now Infinity sets no bound, and a finite
 * bound that setTimeout cannot keep is refused at the call. Real stores and ports; FakeLocks;
 * fake timers for the wait.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { SharedFetchInputError } from "../../src/core/errors.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { WORKER_READY_MS } from "../../src/worker/worker-bounds.ts";
import { cleanup, sharedWorkerHere } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/worker-timeout";
let seq = 0;
afterEach(() => void vi.useRealTimers());

describe("connectBrowser's workerTimeoutMs", () => {
  it("Infinity: a worker that answers an hour late still serves the tab; it never falls back", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const host = new Host();
    host.auto = () => ({ status: 200, body: { late: 1 } });
    sharedWorkerHere();
    const locks = new FakeLocks();
    const replica = createBrowserReplica({ locks: locks.forTab("worker"), fetch: host.fetch, store: { settleMs: 0 } });
    cleanup(() => replica.destroy());
    const workerEnds: MessagePort[] = [];
    const start = () => {
      const channel = new MessageChannel();
      cleanup(() => (channel.port1.close(), channel.port2.close()));
      workerEnds.push(channel.port2);
      return { port: channel.port1 as unknown as MessagePort };
    };
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    cleanup(() => error.mockRestore());
    const store = connectBrowser({
      name: `wt-${process.pid}-${++seq}`,
      worker: start,
      locks: locks.forTab("t"),
      workerTimeoutMs: Infinity,
    });
    cleanup(() => store.destroy());
    const asked = store.ensure({ url: API });
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(store.mode).toBe("shared-worker");
    expect(error).not.toHaveBeenCalled();
    vi.useRealTimers();
    // The worker's script ran only now: the tab's port (and its probe's) connect.
    for (const port of workerEnds) replica.accept(port as unknown as MessagePort);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { late: 1 } });
    expect(store.mode).toBe("shared-worker");
    expect(host.calls).toHaveLength(1);
  });

  it("a finite bound past 2^31 - 1 ms, or a negative one, is refused at the call, naming it; the default and Infinity are taken", () => {
    sharedWorkerHere();
    const make = (workerTimeoutMs: number) => {
      const store = connectBrowser({
        name: `wt-${process.pid}-${++seq}`,
        worker: () => ({ port: new MessageChannel().port1 }),
        locks: new FakeLocks().forTab("t"),
        workerTimeoutMs,
      });
      cleanup(() => store.destroy());
      return store;
    };
    for (const bad of [2 ** 31, 2 ** 32, -1])
      expect(() => make(bad)).toThrow(
        new SharedFetchInputError(`shared-fetch: workerTimeoutMs must be a non-negative number at most 2147483647, got ${bad}`),
      );
    expect(() => make(WORKER_READY_MS)).not.toThrow();
    expect(() => make(2 ** 31 - 1)).not.toThrow();
    expect(() => make(Infinity)).not.toThrow();
  });
});
