/**
 * The Keys tab's "claimed 3.2 s ago": a claim's `at` is its writer's clock (skewed against this
 * one), so the age is measured from when this panel first saw the claim, on its own clock (the
 * title says so): never negative, whatever the writer's clock says. A claim that stood when the
 * panel started is aged from the panel's start, and marked so (test/devtools/claim-age-at-start.test.tsx).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "../harness/replicas.ts";

describe("devtools keys: a claim's age on the panel's clock (invariant 3: never compare another machine's timestamp)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a claim seen after the panel started carries when it was seen; one standing at the start carries the start, marked so", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    background(a!.ensure({ url: URL_A }));
    await tick(1);
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    const before = model.getSnapshot().keys.find((k) => k.claim)!;
    // Standing at the start: seen then, and marked so (its age is a lower bound).
    expect(before.claim).toMatchObject({ seenAt: Date.now(), seenAtStart: true });
    await tick(3_000);
    const seenAt = Date.now();
    background(a!.ensure({ url: `${URL_A}?other` }));
    await tick(1);
    const rows = model.getSnapshot().keys.filter((k) => k.claim && k.key !== before.key);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.claim!.seenAt).toBeGreaterThanOrEqual(seenAt);
    expect(rows[0]!.claim!.seenAt).toBeLessThanOrEqual(Date.now());
    model.destroy();
  });
});
