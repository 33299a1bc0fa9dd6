/**
 * The development simulations as the panel shows them on a SharedWorker tab (connectBrowser) whose
 * worker failed to load: from then on the tab's store is a front for a replica of its own, and the
 * panel's switches act on that replica. The header must say what is in force there (a paused
 * network, a crash), not what the failed worker was last told. Real stores and ports; FakeLocks.
 */
import { expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { simulateCrash, simulatePauseNetwork } from "../../devtools/actions.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { internalsOf } from "../../src/internals.ts";
import { cleanup, sharedWorkerHere } from "../worker/browser-sim.ts";

const API = "http://127.0.0.1:9/api/fallback-sims";

it("after the worker failed to load, the panel's simulations show the tab's own replica paused, then crashed", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { ok: 1 } });
  sharedWorkerHere();
  // A worker whose script fails: its port never answers, and it fires `error`.
  const channel = new MessageChannel();
  cleanup(() => (channel.port1.close(), channel.port2.close()));
  const onError: ((event: Event) => void)[] = [];
  const worker = {
    port: channel.port1 as unknown as MessagePort,
    addEventListener: (_type: "error", listener: (event: Event) => void) => void onError.push(listener),
  };
  const store = connectBrowser({
    name: `fallback-sims-${process.pid}`,
    worker: () => worker,
    locks: new FakeLocks().forTab("t"),
    fetch: host.fetch,
  });
  cleanup(() => store.destroy());
  // The panel was open before the worker failed.
  const model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  const asked = store.ensure({ url: API });
  while (store.mode === "shared-worker") {
    for (const l of onError) l(new Event("error"));
    await new Promise((r) => setTimeout(r, 1));
  }
  await expect(asked).resolves.toMatchObject({ status: "success" });

  simulatePauseNetwork(store, true);
  expect(internalsOf(store).dev.networkPaused).toBe(true);
  await vi.waitFor(() => expect(model.getSnapshot().simulations).toEqual({ crashed: false, networkPaused: true }), { timeout: 5000 });
  simulateCrash(store);
  expect(internalsOf(store).dev.crashed).toBe(true);
  await vi.waitFor(() => expect(model.getSnapshot().simulations).toEqual({ crashed: true, networkPaused: true }), { timeout: 5000 });
});
