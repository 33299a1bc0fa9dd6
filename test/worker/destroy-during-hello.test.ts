/**
 * A tab store destroyed while its first hello waits for the tab's lifetime lock (React
 * StrictMode's mount-unmount-mount of a store made in an effect does that): the lock, once
 * granted, is let go at once. Held, it outlived the store for the page's life, where no worker
 * would ever watch it (a held Web Lock also keeps the page out of the back/forward cache).
 */
import { expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser, type BrowserStore } from "../../src/worker/connect-browser.ts";
import { cleanup, sharedWorkerHere, until } from "./browser-sim.ts";

it("a store destroyed while its hello waits for the tab lock lets go of that lock once granted (no tab lock outlives the store)", async () => {
  sharedWorkerHere();
  const locks = new FakeLocks();
  const replica = createBrowserReplica({ locks: locks.forTab("worker"), lockName: "worker", fetch: new Host().fetch });
  cleanup(() => replica.destroy());
  const made: { store?: BrowserStore } = {};
  let started = false;
  const start = () => {
    const channel = new MessageChannel();
    replica.accept(channel.port2 as unknown as MessagePort);
    started = true;
    // Right after the worker is started, before the tab's lock is granted to its hello.
    queueMicrotask(() => made.store!.destroy());
    return { port: channel.port1 as unknown as MessagePort };
  };
  made.store = connectBrowser({ name: `destroy-during-hello-${process.pid}`, worker: start, locks: locks.forTab("tab") });
  await until(() => started);
  const tabLocks = async () =>
    ((await locks.forTab("probe").query()).held ?? []).map(({ name }) => name ?? "").filter((n) => n.startsWith("shared-fetch:tab:"));
  // The grant comes a few microtasks after the destroy: give it a task or two.
  await new Promise((r) => setTimeout(r, 50));
  expect(await tabLocks()).toEqual([]);
});
