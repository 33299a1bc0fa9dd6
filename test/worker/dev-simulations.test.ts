/**
 * The devtools' simulations on a tab in SharedWorker mode act on the worker's replica, the one
 * every tab shows (they were inert there): "crash this replica" stops the worker as if its renderer
 * died — its locks let go, so the tabs start the next generation, which takes its claim over —
 * and "pause network" holds the worker's requests for every tab. Real ports, docs and stores;
 * FakeLocks.
 */
import { describe, expect, it } from "vitest";
import { simulateCrash, simulatePauseNetwork } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/internals.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/sim";

describe("devtools simulations in worker mode", () => {
  it("crash: the worker stops as if dead, the next worker takes its claim over, every tab gets the data of the 2nd request", async () => {
    const host = new Host();
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const p1 = t1.ensure({ url: API });
    const p2 = t2.ensure({ url: API });
    const [first] = await host.whenCalls(1);
    const key = t1.keyOf({ url: API });
    await until(
      () =>
        b
          .workerStore(0)
          .inspect()
          .keys.find((k) => k.key === key)?.local?.waiters === 2,
    );
    expect(internalsOf(t1).dev.crashed).toBe(false);
    simulateCrash(t1);
    // The tab shows the crash at once; the worker's replica is frozen (it sees no response and writes nothing).
    expect(internalsOf(t1).dev.crashed).toBe(true);
    await until(() => internalsOf(b.workerStore(0)).dev.crashed);
    const calls = await host.whenCalls(2);
    // The crashed worker's request is not aborted (a dead page aborts nothing); its answer is never seen.
    first!.respond(200, { from: "the crashed worker" });
    calls[1]!.respond(200, { from: "the next worker" });
    await expect(p1).resolves.toMatchObject({ status: "success", data: { from: "the next worker" } });
    await expect(p2).resolves.toMatchObject({ status: "success", data: { from: "the next worker" } });
    expect(host.calls).toHaveLength(2);
    expect(b.workerStore(1).replicaId).toBe(t1.replicaId);
    // The next worker is live: the switch is back for this tab.
    expect(internalsOf(t1).dev.crashed).toBe(false);
  });

  it("pause network: the worker's requests wait (for every tab) until resumed; the switch shows in each tab", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { resumed: true } });
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    await t1.ensure({ url: `${API}/warm` });
    // t2 watches the inspection (as its devtools do): the worker's switch reaches it.
    const off = t2.onInspect(() => {});
    simulatePauseNetwork(t1, true);
    expect(internalsOf(t1).dev.networkPaused).toBe(true);
    await until(() => internalsOf(b.workerStore(0)).dev.networkPaused);
    await until(() => internalsOf(t2).dev.networkPaused);
    const asked = t2.ensure({ url: API });
    const key = t2.keyOf({ url: API });
    await until(
      () =>
        b
          .workerStore(0)
          .inspect()
          .keys.find((k) => k.key === key)?.claim !== undefined,
    );
    expect(host.calls).toHaveLength(1);
    simulatePauseNetwork(t1, false);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { resumed: true } });
    expect(host.calls).toHaveLength(2);
    await until(() => !internalsOf(t2).dev.networkPaused);
    off();
  });
});
