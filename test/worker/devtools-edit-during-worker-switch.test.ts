/**
 * A devtools edit made through a tab's mirror of the worker's doc while the worker is dying (its
 * port goes nowhere, or the tab has no worker yet) reaches the next worker: the tab sends its
 * mirror's state with its hello. Before, the edit stayed in the tab's mirror alone, the next
 * worker kept the evicted record, and later edits built on it were held back as Yjs updates
 * whose predecessor never came. Real ports, docs and stores; FakeLocks.
 */
import { describe, expect, it } from "vitest";
import { evictRecord } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/internals.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/devtools-edit-switch";

describe("devtools edits during a worker switch", () => {
  it("an evict made as the worker dies is applied by the next worker: the tab's next ensure asks the host again", async () => {
    const host = new Host();
    host.auto = (call) => ({ status: 200, body: { n: call.n } });
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const key = t1.keyOf({ url: API });
    await expect(t1.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    await t2.ensure({ url: API });
    // The panel is open in t1: its mirror holds the record.
    const { records } = internalsOf(t1);
    await until(() => records.results.get(key) !== undefined);
    await until(() => b.workers.has(`shared-fetch:${b.name}:1`));

    b.kill(0);
    // Before the tab hears of the death: its edit goes out on the dead worker's port.
    expect(evictRecord(t1, key)).toEqual({ ok: true });
    await until(() => t1.replicaId === b.workerStore(1).replicaId);

    // The next worker applied the evict before this ask (one port, in order): the host is asked.
    await expect(t1.ensure({ url: API })).resolves.toMatchObject({ data: { n: 2 } });
    expect(host.calls).toHaveLength(2);
    // And an edit built on the evict is applied there too.
    expect(evictRecord(t1, key)).toEqual({ ok: true });
    await until(() => b.workerStore(1).resultInfo({ url: API }) === undefined);
  });
});
