/**
 * `retry` across a takeover: the replica that takes a dead claimant's request over runs a sequence
 * of attempts of its own (the dead one's failures are not in the doc), as a tab opened after the
 * crash would. README, "Retries run inside the claim", says so.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { tanstackRetry } from "../src/core/retry.ts";
import { background, cluster, tick, URL_A, useFakeClock } from "./harness/replicas.ts";

afterEach(() => vi.useRealTimers());

describe("retry counts across a takeover (invariant 3: the lease decides, the retries restart)", () => {
  it("a claimant that dies after 2 of its 4 attempts: the replica that takes over makes up to 4 more, then records the error once", async () => {
    useFakeClock();
    const c = cluster(0, { settleMs: 0, leaseMs: 3000 });
    const a = c.join({ fetch: c.host.fetchAs("a") });
    const b = c.join({ fetch: c.host.fetchAs("b") });
    c.host.auto = () => ({ status: 503, body: "busy" });
    const retry = tanstackRetry(3, 1000, (e) => new Error(e.message));
    background(a.ensure({ url: URL_A }, { retry } as never));
    await tick(10);
    const waiting = background(b.ensure({ url: URL_A }, { retry } as never));
    // a: attempts at 0 and 1 s failed; it dies during its second retry delay.
    await tick(1500);
    expect(c.host.calls.map((x) => x.from)).toEqual(["a", "a"]);
    // Cut off, then stopped: nothing it says reaches b, and it sends nothing more.
    c.crash(a);
    a.destroy();
    for (let i = 0; i < 200 && !(await Promise.race([waiting.then(() => true), Promise.resolve(false)])); i++) await tick(100);
    const snap = await waiting;
    expect(snap.status).toBe("error");
    expect(c.host.calls.filter((x) => x.from === "b")).toHaveLength(4);
  });
});
