import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A, useFakeClock } from "./harness/replicas.ts";

const slow = { url: `${URL_A}/report` };
const poll = { url: `${URL_A}/status` };

describe("invariant 10: a slow request under a long lease, while short-lease requests come and go", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("is never taken over: a short request starting and ending does not postpone the claimant's heartbeat", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    // A slow report that raised its own lease (the seed's advice), as an observer sees it.
    background(a!.ensure(slow, { leaseMs: 30_000 }));
    await tick(1);
    expect(c.host.calls).toHaveLength(1);
    const waiting = background(b!.ensure(slow));
    // Meanwhile a's page polls a fast endpoint every 5 s (default lease): each answer comes in 200 ms.
    for (let t = 0; t < 120_000; t += 5000) {
      const fast = background(a!.refetch(poll));
      await tick(200);
      c.host.open.filter((call) => call.url.endsWith("/status")).forEach((call) => call.respond(200, t));
      await until(fast);
      await tick(4800);
      expect(b!.snapshot(slow)).toMatchObject({ status: "pending", claim: { replicaId: a!.replicaId, stale: false } });
    }
    expect(c.host.calls.filter((call) => call.url.endsWith("/report"))).toHaveLength(1);
    c.host.calls[0]!.respond(200, "report");
    await expect(until(waiting)).resolves.toEqual({ status: "success", data: "report" });
  });
});
