/**
 * A port that connects and never says hello (its tab crashed between `new SharedWorker` and its
 * hello, its page's script failed, a probe the tab let go) was kept in the worker's sessions for
 * the worker's life: a long-lived worker held every such port. It is let go once RETIRE_AFTER_MS
 * passed without a hello; a slow tab whose hello comes later is still served on that port.
 * Real ports, docs and stores; FakeLocks; fake setTimeout for the bound; a full collection to see
 * that nothing of the worker holds the port.
 */
import "fake-indexeddb/auto";
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica, RETIRE_AFTER_MS } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import type { PortLike } from "../../src/worker/port.ts";
import { cleanup, sharedWorkerHere } from "./browser-sim.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const API = "http://127.0.0.1:9/api/port-without-hello";
let seq = 0;

afterEach(() => void vi.useRealTimers());

async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref.deref() === undefined;
}

function scene() {
  sharedWorkerHere();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const locks = new FakeLocks();
  const name = `no-hello-${process.pid}-${++seq}`;
  const replica = createBrowserReplica({ locks: locks.forTab("w"), lockName: "w", fetch: host.fetch, store: { settleMs: 0 } });
  cleanup(() => replica.destroy());
  const tab = (port: () => PortLike, options: { workerTimeoutMs?: number } = {}) => {
    const store = connectBrowser({ name, worker: () => ({ port: port() }), locks: locks.forTab(`t${++seq}`), standby: false, ...options });
    cleanup(() => store.destroy());
    return store;
  };
  /** A port to the worker, as `new SharedWorker` gives a tab. */
  const connect = () => {
    const channel = new MessageChannel();
    replica.accept(channel.port2 as unknown as MessagePort);
    return channel;
  };
  return { replica, tab, connect };
}

it("a port whose tab died before its hello is let go after RETIRE_AFTER_MS while other tabs keep the worker serving", async () => {
  const { tab, connect } = scene();
  const live = tab(() => connect().port1 as unknown as PortLike);
  await expect(live.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  // In a function of its own: the test keeps nothing of the worker's side.
  const ref = (() => {
    const channel = connect();
    channel.port1.close();
    return new WeakRef(channel.port2);
  })();
  await vi.advanceTimersByTimeAsync(RETIRE_AFTER_MS + 100);
  vi.useRealTimers();
  expect(await collected(ref)).toBe(true);
  // The worker still serves the tab that said hello.
  await expect(live.refetch({ url: API })).resolves.toMatchObject({ status: "success" });
});

it("a slow tab whose hello comes after RETIRE_AFTER_MS is served on its port", async () => {
  const { tab, connect } = scene();
  const live = tab(() => connect().port1 as unknown as PortLike);
  await expect(live.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  // Its messages wait until its page's busy boot lets them out.
  const held: unknown[] = [];
  let busy = true;
  let inner: MessagePort | undefined;
  const slow = tab(
    () => {
      // A probe (the tab hears nothing for WORKER_PROBE_MS) gets a port of its own, which stays silent.
      if (inner) return connect().port1 as unknown as PortLike;
      inner = connect().port1;
      return {
        postMessage: (m: unknown) => (busy ? held.push(m) : inner!.postMessage(m)),
        addEventListener: (t: "message", f: (e: MessageEvent) => void) => inner!.addEventListener(t, f),
        removeEventListener: (t: "message", f: (e: MessageEvent) => void) => inner!.removeEventListener(t, f),
        start: () => inner!.start(),
        close: () => inner!.close(),
      };
    },
    { workerTimeoutMs: Infinity },
  );
  const asked = slow.ensure({ url: API });
  await vi.advanceTimersByTimeAsync(RETIRE_AFTER_MS * 2);
  vi.useRealTimers();
  busy = false;
  for (const m of held.splice(0)) inner!.postMessage(m);
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(slow.mode).toBe("shared-worker");
});
