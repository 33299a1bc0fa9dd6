/**
 * A panel left open on a store that was destroyed: the store reads its doc no more, so its view
 * judged against a running clock would show a live, heartbeating claim going stale ("heartbeat
 * lapsed"). The panel keeps the store's last view, judges it no further, and says it is one.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const LEASE = 5000;
const req = { url: URL_A };
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

it("the panel of a destroyed store shows its last view, marked so, and tells no lapse of a live claim", async () => {
  const c = cluster(2);
  const [a, b] = c.stores;
  const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
  background(a!.ensure(req)); // the host never answers: a's claim stands and a heartbeats
  await tick(100);
  expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
  expect(model.getSnapshot()).not.toHaveProperty("storeDestroyed");
  b!.destroy();
  await tick(3 * LEASE);
  const snap = model.getSnapshot();
  expect(snap.storeDestroyed).toBe(true);
  expect(snap.keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
  expect(model.timeline.entries().map((e) => e.type)).not.toContain("stale");
  model.destroy();
});

it("a store destroyed in a quiet doc (nothing in flight, no replica writing): the open panel says so at once", async () => {
  const c = cluster(1, { settleMs: 0 });
  const [a] = c.stores;
  c.host.auto = () => ({ status: 200, body: 1 });
  await until(a!.ensure(req));
  const model = createDevtoolsModel(a!, { minNotifyIntervalMs: 0 });
  let told = 0;
  model.subscribe(() => told++);
  await tick();
  const before = told;
  a!.destroy();
  await tick();
  expect(model.getSnapshot().storeDestroyed).toBe(true);
  expect(told).toBeGreaterThan(before);
  // Its last view: the result it showed, judged no further.
  expect(model.getSnapshot().keys.map((k) => k.result?.rev)).toEqual([1]);
  model.destroy();
});
