/**
 * A tab that leaves for good (its store destroyed, or its page unloaded: pagehide not persisted)
 * says so in its bye, and the worker ends its session at once: it closed nothing, keeping every
 * such tab's session and port until the worker retired (a long-lived worker, tabs opened and closed
 * all day). The worker leaves the port of a tab going into the back/forward cache open; back, the
 * tab says hello on a new one (which reaches whichever worker of that name lives) and is served.
 * Real ports, docs and stores; FakeLocks; the simulated host; the page's events from pageEvents().
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { cleanup, pageEvents, sharedWorkerHere, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/leaves-for-good";
let seq = 0;

/** One worker, and a tab of it whose worker-side port's closing the test sees. */
function scene() {
  sharedWorkerHere();
  const host = new Host();
  const locks = new FakeLocks();
  const name = `leaves-${process.pid}-${++seq}`;
  const replica = createBrowserReplica({ locks: locks.forTab("w"), lockName: "w", fetch: host.fetch, store: { settleMs: 0 } });
  cleanup(() => replica.destroy());
  const closed: boolean[] = [];
  const worker = () => {
    const channel = new MessageChannel();
    const i = closed.push(false) - 1;
    // Node's ports tell one side that the other closed.
    (channel.port1 as unknown as { once(t: string, f: () => void): void }).once("close", () => (closed[i] = true));
    replica.accept(channel.port2 as unknown as MessagePort);
    return { port: channel.port1 as unknown as MessagePort };
  };
  const tab = () => {
    const store = connectBrowser({ name, worker, locks: locks.forTab(`t${seq}`), standby: false });
    cleanup(() => store.destroy());
    return store;
  };
  return { host, closed, tab };
}

it("invariant 11: a tab whose page unloads for good (pagehide, not persisted) ends its session: the worker aborts its request and closes its port", async () => {
  const page = pageEvents();
  const { host, closed, tab } = scene();
  const store = tab();
  void store.ensure({ url: API }).catch(() => {});
  const [call] = await host.whenCalls(1);
  page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: false }));
  await until(() => call!.aborted);
  await until(() => closed[0] === true);
});

it("the worker leaves the port of a tab in the back/forward cache open; back, the tab is served", async () => {
  const page = pageEvents();
  const { host, closed, tab } = scene();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const store = tab();
  await expect(store.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  page.dispatchEvent(Object.assign(new Event("pagehide"), { persisted: true }));
  await new Promise((r) => setTimeout(r, 50));
  expect(closed).toEqual([false]);
  page.dispatchEvent(Object.assign(new Event("pageshow"), { persisted: true }));
  await expect(store.refetch({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(store.mode).toBe("shared-worker");
});
