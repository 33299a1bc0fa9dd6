/**
 * Devtools, "a panel left open for a week": what the panel notes per key and per replica goes when
 * the store shows that key or replica no more. Before, the timeline kept when it saw each key's
 * result written, and the model each replica's presence and each key's hint, for every key and
 * replica it ever saw: a wall dashboard's panel grew with every key retention swept and every tab
 * that was opened and closed, for as long as it stayed open.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, Timeline } from "../../devtools/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

type Noted = { writtenAt: { result: Map<string, unknown>; error: Map<string, unknown> } };

describe("a devtools panel left open forgets the keys and replicas the store no longer shows", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("200 keys written, then swept by another replica: the timeline keeps no note of any of them", async () => {
    const c = cluster(2, { settleMs: 0 });
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    const [a, b] = c.stores;
    const model = createDevtoolsModel(a!, { minNotifyIntervalMs: 0 });
    const swept = internalsOf(b!).records;
    for (let i = 0; i < 200; i++) {
      const req = { url: `${URL_A}/${i}` };
      await until(a!.ensure(req), 1);
      await tick(1);
      swept.doc.transact(() => swept.results.delete(a!.keyOf(req)));
      await tick(1);
    }
    expect(model.getSnapshot().keys).toEqual([]);
    expect(model.timeline.entries()[0]).toMatchObject({ type: "swept" });
    const { writtenAt } = model.timeline as unknown as Noted;
    expect([writtenAt.result.size, writtenAt.error.size]).toEqual([0, 0]);
    model.destroy();
  });

  it("a Timeline fed inspections whose keys come and go keeps notes only for the keys shown", () => {
    const timeline = new Timeline();
    const inspection = (keys: string[], at: number) => ({
      replicaId: "me",
      at,
      keys: keys.map((key) => ({ key, kind: "fetch" as const, recorded: 1, result: { rev: 1, data: 1 }, error: { rev: 1, message: "x" } })),
      replicas: [],
      malformed: [],
      lifecycle: "ready" as const,
    });
    timeline.observe(inspection([], 0));
    for (let i = 0; i < 100; i++) {
      timeline.observe(inspection([`k${i}`], 2 * i + 1));
      timeline.observe(inspection([], 2 * i + 2));
    }
    timeline.observe(inspection(["last"], 1000));
    const { writtenAt } = timeline as unknown as Noted;
    expect([...writtenAt.result.keys(), ...writtenAt.error.keys()]).toEqual(["last", "last"]);
  });

  it("10 000 replicas seen and gone: the open model's memory does not grow with them (heap measured after a full GC, against the same run without a panel)", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const beats = internalsOf(b!).records.beats;
    // Long ids (the most a record may carry) make each forgotten entry weigh.
    const visits = async (from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        const id = `visitor-${i}-`.padEnd(200, "x");
        beats.set(id, { n: 1, nonces: [] });
        await tick(1);
        beats.delete(id);
        await tick(1);
      }
    };
    const growth = async (from: number) => {
      gc();
      const before = process.memoryUsage().heapUsed;
      await visits(from, 10_000);
      gc();
      return process.memoryUsage().heapUsed - before;
    };
    await visits(0, 500); // warm up
    const alone = await growth(1_000_000);
    const model = createDevtoolsModel(a!, { minNotifyIntervalMs: 0 });
    const off = model.subscribe(() => model.getSnapshot());
    const withPanel = await growth(2_000_000);
    // Forgotten, the 10 000 entries of 200-character ids weighed about 2.5 MB. Quiet, the growth reads
    // -0.1 to +0.15 MB; under a full parallel test run it once read 1.02 MB (the heap's own noise).
    expect(withPanel - alone).toBeLessThan(1_500_000);
    expect(model.getSnapshot().replicas.map((r) => r.replicaId)).toEqual([a!.replicaId]);
    off();
    model.destroy();
  }, 120_000);
});
