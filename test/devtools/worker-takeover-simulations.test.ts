/**
 * The development simulations across a SharedWorker takeover (connectBrowser): the panel's "pause
 * network" and "stop heartbeats" act on the worker's replica, every tab's. When that worker dies
 * and the next generation takes over, the panel's switches and the replica that now serves must
 * agree. Real ports, docs and stores; FakeLocks (crash = the browser releasing a dead realm's locks).
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { simulatePauseNetwork } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/internals.ts";
import { STANDBY_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup } from "../worker/browser-sim.ts";

const API = "http://127.0.0.1:9/api/takeover-simulations";

it("network paused, then the worker dies: the next worker runs paused too, as the panel shows", async () => {
  const b = browser(new Host());
  const [tab, other] = [b.tab(), b.tab()];
  const model = createDevtoolsModel(tab, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  const standby = `${STANDBY_LOCK_PREFIX}shared-fetch:${b.name}:1`;
  const asks = [tab, other].map((t) => t.ensure({ url: API }));
  await b.host.whenCalls(1);
  while (!((await b.locks.forTab("probe").query()).held ?? []).some((l) => l.name === standby)) await new Promise((r) => setTimeout(r, 2));
  simulatePauseNetwork(tab, true);
  await expect.poll(() => internalsOf(b.workerStore(0)).dev.networkPaused, { timeout: 5000 }).toBe(true);
  b.kill(0);
  await expect.poll(() => model.getSnapshot().replicaId, { timeout: 5000 }).toBe(b.workerStore(1).replicaId);
  // The next worker runs paused, as the panel shows (before, it ran unpaused and the switch
  // flipped back by itself in the panel: the user's pause was dropped at the takeover).
  await expect.poll(() => internalsOf(b.workerStore(1)).dev.networkPaused, { timeout: 5000 }).toBe(true);
  expect(model.getSnapshot().simulations.networkPaused).toBe(true);
  // Switched off, it is off in both.
  simulatePauseNetwork(tab, false);
  await expect.poll(() => internalsOf(b.workerStore(1)).dev.networkPaused, { timeout: 5000 }).toBe(false);
  expect(model.getSnapshot().simulations.networkPaused).toBe(false);
  (await b.host.whenCalls(2))[1]!.respond(200, { from: "next worker" });
  for (const ask of asks) await expect(ask).resolves.toMatchObject({ status: "success" });
}, 20_000);
