/**
 * Invariant 3a as the Replicas tab shows it in SharedWorker mode (connectBrowser): the live worker
 * dies (its renderer crashed) and the next generation takes its claim over because its Web Lock was
 * released. Only a replica of this browser is watched by its Web Lock, so the dead worker is shown
 * as one of this browser, gone by its lock — not as another device, though its claim (which named
 * its browser) was rewritten and it never had a presence to name it. Real ports, docs and stores;
 * FakeLocks (crash = the browser releasing a dead realm's locks); fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { STANDBY_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup } from "../worker/browser-sim.ts";

const API = "http://127.0.0.1:9/api/takeover-replicas";

it("after a worker takeover, the dead worker's row says same browser, lock released (invariant 3a)", async () => {
  const b = browser(new Host());
  const tabs = [b.tab(), b.tab()];
  const model = createDevtoolsModel(tabs[0]!, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  const asks = tabs.map((t) => t.ensure({ url: API }));
  await b.host.whenCalls(1);
  // The next generation's standby stands (its lock held, the tabs told).
  const standby = `${STANDBY_LOCK_PREFIX}shared-fetch:${b.name}:1`;
  while (!((await b.locks.forTab("probe").query()).held ?? []).some((l) => l.name === standby)) await new Promise((r) => setTimeout(r, 2));
  await new Promise((r) => setTimeout(r, 20));
  const dead = model.getSnapshot().replicaId;
  b.kill(0);
  (await b.host.whenCalls(2))[1]!.respond(200, { from: "next worker" });
  for (const ask of asks) await expect(ask).resolves.toMatchObject({ status: "success" });
  await expect.poll(() => model.getSnapshot().replicaId, { timeout: 5000 }).toBe(b.workerStore(1).replicaId);
  await expect
    .poll(() => model.getSnapshot().replicas.find((r) => r.replicaId === dead), { timeout: 5000 })
    .toMatchObject({ departed: "lock-released", present: false, where: "same browser" });
});
