import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { background, cluster, tick, until, URL_A, useFakeClock } from "../harness/replicas.ts";

const req = { url: URL_A };

describe("devtools: when a result was written", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a result this panel saw written keeps its time when a failed refetch records an error beside it", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    const model = createDevtoolsModel(b!, { minNotifyIntervalMs: 0 });
    const first = background(a!.ensure(req));
    await tick(1);
    const writtenAt = Date.now();
    c.host.calls[0]!.respond(200, "ok");
    await until(first);
    await tick();
    expect(model.getSnapshot().keys[0]!.result).toMatchObject({ rev: 1, at: writtenAt });
    await tick(1000);
    const again = background(a!.refetch(req));
    await tick(1);
    c.host.calls[1]!.respond(503, "busy");
    await until(again);
    await tick();
    const row = model.getSnapshot().keys[0]!;
    expect(row.error).toMatchObject({ rev: 2, at: expect.any(Number) });
    // Still the time the panel saw it written, not "before this panel started".
    expect(row.result).toMatchObject({ rev: 1, at: writtenAt });
    model.destroy();
  });
});
