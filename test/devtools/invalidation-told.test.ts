import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel, describeEntry } from "../../devtools/index.ts";
import { invalidateKey } from "../../devtools/invalidate.ts";
import { cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

describe("devtools: an invalidation is told, not only done", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("another replica's panel shows the key's outcome marked stale and its timeline says so", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure(req));
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    await tick();
    expect(model.getSnapshot().keys[0]!.result).not.toHaveProperty("invalidated");
    expect(invalidateKey(a!, a!.keyOf(req))).toMatchObject({ ok: true, doc: true });
    await tick();
    const row = model.getSnapshot().keys[0]!;
    expect(row).toMatchObject({ status: "success", result: { rev: 1, invalidated: true } });
    const [last] = model.timeline.entries();
    expect(last).toMatchObject({ type: "invalidated", key: a!.keyOf(req), rev: 1 });
    expect(describeEntry(last!)).toBe(
      "GET https://api.example.test/items was marked stale for every replica (rev 1): the next demand fetches again",
    );
    expect(c.host.calls).toHaveLength(1);
    model.destroy();
  });

  it("the mark goes once a newer error is the key's latest outcome, as the store judges it", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure(req));
    invalidateKey(a!, a!.keyOf(req));
    await tick();
    expect(a!.inspect().keys[0]!.result).toMatchObject({ invalidated: true });
    c.host.auto = () => ({ status: 503, body: "down" });
    await until(a!.refetch(req));
    const row = a!.inspect().keys[0]!;
    expect(row.error).toMatchObject({ rev: 2, status: 503 });
    expect(row.result).toMatchObject({ rev: 1 });
    expect(row.result).not.toHaveProperty("invalidated");
  });

  it("a key whose latest outcome is an error: the error carries the mark and the timeline tells it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.host.auto = () => ({ status: 503, body: "down" });
    await until(a!.ensure(req));
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    await tick();
    expect(invalidateKey(a!, a!.keyOf(req))).toMatchObject({ ok: true, doc: true });
    await tick();
    const row = model.getSnapshot().keys[0]!;
    expect(row).toMatchObject({ status: "error", error: { rev: 1, status: 503, invalidated: true } });
    expect(row).not.toHaveProperty("result");
    const [last] = model.timeline.entries();
    expect(last).toMatchObject({ type: "invalidated", key: a!.keyOf(req), rev: 1 });

    // A result kept beside a newer error: the mark goes on the error, the outcome the store judges.
    c.host.auto = () => ({ status: 200, body: { n: 2 } });
    await until(a!.refetch(req));
    c.host.auto = () => ({ status: 503, body: "down" });
    await until(a!.refetch(req));
    invalidateKey(a!, a!.keyOf(req));
    await tick();
    const both = model.getSnapshot().keys[0]!;
    expect(both.error).toMatchObject({ rev: 3, invalidated: true });
    expect(both.result).toMatchObject({ rev: 2 });
    expect(both.result).not.toHaveProperty("invalidated");
    expect(c.host.calls).toHaveLength(3);
    model.destroy();
  });
});
