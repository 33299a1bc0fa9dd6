/**
 * The Replicas tab's "present since": a replica that arrived while the panel was open (a tab opened
 * later) is present since the panel saw it arrive. It showed "present" with no time, which the
 * panel's own words (DevtoolsReplica.since) read as "unchanged since the panel started".
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { cluster, tick, useFakeClock } from "../harness/replicas.ts";
import { linkedAwareness } from "./awareness.ts";

describe("devtools replicas: present since when", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("present when the panel started: no time; arrived later: since the panel saw it; gone: since it left", async () => {
    const presence = linkedAwareness(3);
    const [awA, awB, awC] = presence.all;
    const c = cluster(0);
    const a = c.join({ awareness: awA! });
    const b = c.join({ awareness: awB! }); // here when the panel started
    await tick();
    const model = createDevtoolsModel(a, { awareness: awA! });
    await tick(5000);
    const arrivedAt = Date.now();
    const later = c.join({ awareness: awC! }); // a tab opened while the panel is open
    await tick();
    const row = (id: string) => model.getSnapshot().replicas.find((r) => r.replicaId === id)!;
    expect(row(later.replicaId)).toMatchObject({ present: true, since: arrivedAt });
    expect(row(b.replicaId)).toMatchObject({ present: true });
    expect(row(b.replicaId).since).toBeUndefined();
    await tick(5000);
    const leftAt = Date.now();
    later.destroy();
    awC!.destroy();
    await tick();
    expect(row(later.replicaId)).toMatchObject({ present: false, since: leftAt });
    model.destroy();
    c.destroy();
    presence.destroy();
  });
});
