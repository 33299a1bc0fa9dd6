import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { cluster, tick, useFakeClock } from "../harness/replicas.ts";
import { linkedAwareness } from "./awareness.ts";

describe("devtools: awareness given to the panel only", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("lists a replica present in the panel's awareness that holds nothing", async () => {
    const presence = linkedAwareness(2);
    const [mine, theirs] = presence.all;
    const c = cluster(1);
    theirs!.setLocalStateField("sharedFetch", { replicaId: "idle-peer", browserId: "browser-c" });
    const model = createDevtoolsModel(c.stores[0]!, { awareness: mine! });
    await tick();
    expect(model.getSnapshot().replicas.map((r) => [r.replicaId, r.present])).toEqual([
      [c.stores[0]!.replicaId, true],
      ["idle-peer", true],
    ]);
    model.destroy();
    presence.destroy();
  });
});
