/**
 * A page hidden and shown again (the back/forward cache) while its first hello waits for the tab's
 * lifetime lock: the hello said after the show goes out once that lock is granted, and the tab is
 * served. Each hello asked for the same exclusive lock: the second queued behind the first, which
 * the tab held for its life, so the second hello never went out and the tab's asks stayed pending.
 */
import { expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { cleanup, pageEvents, sharedWorkerHere, until } from "./browser-sim.ts";

it("back/forward cache: hidden and shown before the tab lock is granted to its first hello, the tab is still served (one lock request at a time)", async () => {
  sharedWorkerHere();
  const page = pageEvents();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { served: true } });
  const locks = new FakeLocks();
  const replica = createBrowserReplica({ locks: locks.forTab("worker"), lockName: "worker", fetch: host.fetch });
  cleanup(() => replica.destroy());
  // The tab's lock is granted only once the gate opens: the page is hidden and shown meanwhile.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const inner = locks.forTab("tab");
  const tabLocks: LockManagerLike = {
    query: () => inner.query(),
    request: (name, options, callback) =>
      name.startsWith("shared-fetch:tab:")
        ? gate.then(() => inner.request(name, options, callback))
        : inner.request(name, options, callback),
  };
  let started = 0;
  const store = connectBrowser({
    name: `hidden-shown-during-hello-${process.pid}`,
    locks: tabLocks,
    standby: false,
    worker: () => {
      started++;
      const channel = new MessageChannel();
      replica.accept(channel.port2 as unknown as MessagePort);
      return { port: channel.port1 as unknown as MessagePort };
    },
  });
  cleanup(() => store.destroy());
  const asked = store.ensure({ url: "https://api.example.test/hidden-shown" });
  await until(() => started === 1);
  page.dispatchEvent(new Event("pagehide"));
  page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  // The show says hello again (to a worker started again: the first never answered).
  await until(() => started === 2);
  open();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { served: true } });
  expect(store.mode).toBe("shared-worker");
});
