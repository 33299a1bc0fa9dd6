/**
 * The timeline tells a claim that went stale and is heard from again (a partition heals, the
 * claimant's heartbeat arrives): "live again", so its last word on the claim is not "heartbeat
 * lapsed" while the row shows it live.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

const LEASE = 5000;
const req = { url: URL_A };
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

it("a claimant cut off past its lease, then back: the panel tells the lapse, then the claim live again", async () => {
  const c = cluster(2);
  const [a, b] = c.stores;
  const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
  background(a!.ensure(req)); // the host never answers: the claim stands, a heartbeats
  await tick(100);
  c.net.isolate(c.docOf(a!));
  await tick(LEASE + 1000);
  expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: true });
  c.net.heal();
  await tick(LEASE / 2); // a's next heartbeat
  expect(model.getSnapshot().keys[0]!.claim).toMatchObject({ replicaId: a!.replicaId, stale: false });
  const types = [...model.timeline.entries()].reverse().map((e) => e.type);
  expect(types).toEqual(["claimed", "stale", "revived"]);
  const [last] = model.timeline.entries();
  const names = (id: string) => (id === a!.replicaId ? "A" : "B");
  expect(describeEntry(last!, names)).toBe(
    "A's claim on GET https://api.example.test/items (rev 1) is live again: heard from after it went stale",
  );
  expect(c.host.calls).toHaveLength(1);
  model.destroy();
});
