/**
 * This side's connection drops: every remote replica leaves its presence at once, with no goodbye
 * and no lock released. The Timeline got one "not heard from" entry per replica (a screenful with
 * many devices); it now tells one entry naming how many and which, and filtering by any of them
 * still finds it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { dropRemotePresence } from "../../src/sync/connection.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { cluster, tick, useFakeClock } from "../harness/replicas.ts";

describe("devtools timeline: a connection drop is one 'unheard' entry (invariant 3a, presence as a failure event)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("three remote replicas dropped at once: one entry naming the three", async () => {
    const presence = linkedPresence(4);
    const [awA, ...others] = presence.all;
    const c = cluster(0);
    const a = c.join({ awareness: awA! });
    const remote = others.map((aw) => c.join({ awareness: aw }));
    await tick();
    const model = createDevtoolsModel(a, { minNotifyIntervalMs: 0 });
    await tick();
    for (let i = 1; i <= 3; i++) presence.cut(i);
    dropRemotePresence(awA!);
    await tick();
    const told = model.timeline.entries().filter((e) => e.type === "unheard");
    expect(told).toHaveLength(1);
    const ids = remote.map((r) => r.replicaId);
    const names = (id: string) => String.fromCharCode(66 + ids.indexOf(id));
    const text = describeEntry(told[0]!, names);
    expect(text).toMatch(/^3 replicas \([BCD], [BCD], [BCD]\): not heard from, counted gone/);
    expect(new Set(text.slice(0, 22).match(/[BCD]/g))).toEqual(new Set(["B", "C", "D"]));
    for (const id of ids) expect(model.timeline.entries({ replicaId: id }).map((e) => e.type)).toEqual(["unheard"]);
    model.destroy();
  });
});
