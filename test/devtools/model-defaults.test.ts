/**
 * README, "Devtools": "renders are batched to at most 10 per second" and "It keeps the newest 500
 * entries, the Events tab the newest 200 (`maxTimeline`, `maxEvents` of `createDevtoolsModel`)".
 * These are the defaults a panel runs with (it passes no option of its own), so the model is made
 * here with none; the timeline's 500 is pinned by test/devtools/timeline-filter-aged-out.test.tsx.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

describe("README, Devtools: the model's defaults", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("renders are batched to at most 10 per second while the doc changes 200 times a second, and the last change is told", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    const model = createDevtoolsModel(a!);
    const told: number[] = [];
    model.subscribe(() => told.push(Date.now()));
    const start = Date.now();
    // Another replica records a new key every 5 ms for 1 s: each is a change this panel shows.
    for (let i = 0; i < 200; i++) {
      background(b!.ensure({ url: `${URL_A}/${i}` }));
      await tick(5);
    }
    await tick(1_000);
    expect(model.getSnapshot().keys).toHaveLength(200);
    const during = told.filter((t) => t - start < 1_000);
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(during.length).toBeLessThanOrEqual(11);
    for (let i = 1; i < told.length; i++) expect(told[i]! - told[i - 1]!).toBeGreaterThanOrEqual(100);
    // The last batch is told too: the panel ends on what the doc holds.
    expect(told.at(-1)).toBeGreaterThanOrEqual(start + 1_000);
    model.destroy();
  });

  it("the Events tab keeps the newest 200 of this store's events, oldest first", async () => {
    const c = cluster(1);
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    const model = createDevtoolsModel(a!);
    let seen = 0;
    a!.onEvent(() => seen++);
    for (let i = 0; i < 80; i++) await until(a!.ensure({ url: `${URL_A}/${i}` }));
    expect(seen).toBeGreaterThan(200);
    const { events } = model.getSnapshot();
    expect(events).toHaveLength(200);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => seen - 199 + i));
    model.destroy();
  });
});
