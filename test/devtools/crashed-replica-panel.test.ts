/**
 * A panel left open on the replica it crashed (the development simulation "crash this replica"):
 * that replica reads nothing more (updates reaching its doc are ignored, heartbeats too), so its
 * view judged against a running clock showed another replica's live, heartbeating claim go stale
 * ("heartbeat lapsed: lease silence"), a lapse that never happened (invariant 3b: silence is what
 * the observer *saw*, and a crashed replica sees nothing). The panel keeps the replica's last view
 * from its crash on, judged no further, as it does for a destroyed store.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { internalsOf } from "../../src/internals.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

const LEASE = 5000;
const req = { url: URL_A };
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

it("the panel of a crashed replica tells no lapse of another replica's live claim", async () => {
  const c = cluster(2);
  const [a, b] = c.stores;
  const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
  background(a!.ensure(req)); // the host never answers: a's claim stands and a heartbeats
  await tick(100);
  expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
  internalsOf(b!).dev.crash();
  await tick(3 * LEASE);
  const snap = model.getSnapshot();
  expect(snap.simulations.crashed).toBe(true);
  expect(snap.keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
  expect(model.timeline.entries().map((e) => e.type)).not.toContain("stale");
  model.destroy();
});
