/**
 * Clock skew and refetch: a result from a device whose clock runs ahead is dated in this replica's
 * future, so it is as new as its arrival here, never newer. A refetch asked after it arrived wants a
 * newer one and sends a request, however the ask reaches the store: at once on a machine whose clock
 * ticks while the ask is judged, or late (a SharedWorker's tab asked before its hello was answered,
 * ASKED_AT). Before, the ask compared the result's own date with its own and took it for an
 * answer: an invalidation refetched nothing, and the list read before a mutation stayed shown.
 */
import { describe, expect, it, vi } from "vitest";
import { ASKED_AT } from "../src/core/store-options.ts";
import { cluster, onDevice, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const URL_A = { url };

/** B's result, dated 10 s in A's future, has reached A; 50 ms later nothing is in flight. */
async function resultFromDeviceAhead() {
  useFakeClock();
  const c = cluster(2, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  const [a, ahead] = c.stores;
  await onDevice(c, ahead!, 10_000, () => until(ahead!.ensure(URL_A)));
  expect((await until(a!.ensure(URL_A))).data).toEqual({ n: 1 });
  await tick(50);
  return { c, a: a! };
}

describe("clock skew: a refetch asked after a result dated ahead arrived sends a request", () => {
  it("judged while the clock ticks (a busy machine: each read of Date.now 1 ms later), A's refetch is not answered by it", async () => {
    const { c, a } = await resultFromDeviceAhead();
    let now = Date.now();
    const ticking = vi.spyOn(Date, "now").mockImplementation(() => (now += 1));
    const refetched = a.refetch(URL_A);
    ticking.mockRestore();
    expect((await until(refetched)).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("asked before it reached the store (ASKED_AT, a SharedWorker tab's late ask), after the result arrived: not answered by it", async () => {
    const { c, a } = await resultFromDeviceAhead();
    const askedAt = Date.now() - 10;
    const refetched = a.refetch(URL_A, { [ASKED_AT]: askedAt } as never);
    expect((await until(refetched)).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("asked late, the same result answers it when it arrived after the ask (a request in flight at the ask, as TanStack joins one)", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    const [a, ahead] = c.stores;
    const askedAt = Date.now();
    await tick(20);
    await onDevice(c, ahead!, 10_000, () => until(ahead!.ensure(URL_A)));
    const refetched = a!.refetch(URL_A, { [ASKED_AT]: askedAt } as never);
    expect((await until(refetched)).data).toEqual({ n: 1 });
    expect(c.host.calls).toHaveLength(1);
  });
});
