/**
 * The Timeline tells every way a replica stops being counted present. A replica whose presence
 * timed out (y-protocols' 30 s check: a crashed device, a frozen laptop) left the Replicas tab
 * saying "absent" with nothing in the Timeline; it is told apart from one that said goodbye
 * (presence left) and from one whose Web Lock was released (a crashed tab of this browser).
 */
import { removeAwarenessStates } from "y-protocols/awareness";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { linkedPresence } from "../harness/linked-presence.ts";
import { cluster, tick, useFakeClock } from "../harness/replicas.ts";

describe("devtools timeline: a replica whose presence timed out (invariant 3a, presence as a failure event)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("B silent for 30 s: an 'unheard' entry, not 'departed'; C that said goodbye: 'departed, presence left'", async () => {
    const presence = linkedPresence(3);
    const [awA, awB, awC] = presence.all;
    const c = cluster(0);
    const a = c.join({ awareness: awA! });
    const b = c.join({ awareness: awB! });
    const cc = c.join({ awareness: awC! });
    await tick();
    const model = createDevtoolsModel(a, { minNotifyIntervalMs: 0 });
    await tick();
    // C stops in order: its presence says goodbye.
    cc.destroy();
    await tick();
    // B goes silent with no goodbye (a crash on another device): only the timeout drops it. lib0
    // reads the real clock, so y-protocols' own 30 s check is made as it would make it.
    presence.cut(1);
    removeAwarenessStates(awA!, [awB!.clientID], "timeout");
    await tick();
    const told = model.timeline.entries().filter((e) => e.type === "departed" || e.type === "unheard");
    expect(told.map((e) => [e.type, "replicaId" in e ? e.replicaId : undefined, "reason" in e ? e.reason : undefined])).toEqual([
      ["unheard", b.replicaId, undefined],
      ["departed", cc.replicaId, "presence-left"],
    ]);
    const names = (id: string) => (id === b.replicaId ? "B" : id);
    expect(describeEntry(told[0]!, names)).toMatch(/^B: not heard from, counted gone \(its presence timed out after 30 s of silence/);
    expect(model.timeline.entries({ replicaId: b.replicaId }).map((e) => e.type)).toEqual(["unheard"]);
    expect(model.getSnapshot().replicas.find((r) => r.replicaId === b.replicaId)?.present).not.toBe(true);
    model.destroy();
  });
});
