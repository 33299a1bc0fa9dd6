import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

describe("two replicas share one request", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("one host call, both resolve with the data", async () => {
    const c = cluster(2);
    const [a, b] = c.stores;
    const pa = a!.ensure({ url: URL_A });
    const pb = b!.ensure({ url: URL_A });
    await tick(100);
    expect(c.host.calls).toHaveLength(1);
    expect(a!.snapshot({ url: URL_A }).status).toBe("pending");
    expect(b!.snapshot({ url: URL_A }).claim).toMatchObject({ mine: false, stale: false });
    c.host.calls[0]!.respond(200, { n: 1 });
    await tick();
    await expect(pa).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    await expect(pb).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    c.destroy();
  });
});
