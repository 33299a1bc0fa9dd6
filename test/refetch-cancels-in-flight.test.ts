/**
 * TanStack's cancelRefetch on the replica whose request is in flight: an explicit refetch
 * (`skipInFlight`: the hooks' refetch(), refetchQueries, invalidateQueries) aborts that request at
 * the network and sends the new one at once, even while other waiters of this replica joined it
 * (two hooks of a tab, two tabs of a SharedWorker): the new result answers them all, one request
 * in flight per key (invariant 11). Freshness asks (mount, focus, poll) and plain refetches join.
 * Replicas that joined the aborted request see the new result, never an error and never a
 * request of their own.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Snapshot } from "../src/index.ts";
import { background, cluster, tick, twoTabs, until, URL_A as url } from "./harness/replicas.ts";

const R = { url };
const states = (calls: { state: string }[]) => calls.map((call) => call.state);

describe("cancelRefetch: a skipInFlight refetch on the replica holding the request in flight", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] }));
  afterEach(() => vi.useRealTimers());

  it("with several local waiters on it (two hooks of one tab): aborted at once, the new result answers every waiter", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    const first = background(a!.ensure(R));
    await tick(10);
    const second = background(a!.ensure(R)); // another pane of the tab mounts: it joins
    await tick(10);
    expect(states(c.host.calls)).toEqual(["in-flight"]);
    const refetched = background(a!.refetch(R, { skipInFlight: true }));
    await tick(10);
    expect(states(c.host.calls)).toEqual(["aborted", "in-flight"]);
    c.host.calls[1]!.respond(200, { n: "after the refetch" });
    for (const p of [first, second, refetched]) expect((await until(p)).data).toEqual({ n: "after the refetch" });
    expect(c.host.calls).toHaveLength(2);
  });

  it("freshness asks and plain refetches join the request in flight: nothing is aborted", async () => {
    const c = cluster(1, { settleMs: 0 });
    const [a] = c.stores;
    c.host.auto = () => ({ status: 200, body: { n: 1 } });
    await until(a!.ensure(R));
    c.host.auto = undefined;
    const polled = background(a!.ensure(R, { maxAgeMs: 0 }));
    await tick(10);
    const focused = background(a!.ensure(R, { maxAgeMs: 0 }));
    const plain = background(a!.refetch(R));
    await tick(10);
    expect(states(c.host.calls)).toEqual(["answered", "in-flight"]);
    c.host.calls[1]!.respond(200, { n: 2 });
    for (const p of [polled, focused, plain]) expect((await until(p)).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  for (const where of ["another tab of the browser", "another device"] as const) {
    it(`${where} that joined the aborted request ends with the new result, with no error shown and no request of its own`, async () => {
      const { c, a, b } = where === "another device" ? devices() : await twoTabs({ settleMs: 0 });
      c.host.auto = () => ({ status: 200, body: { n: 1 } });
      await until(a.ensure(R));
      c.host.auto = undefined;
      const polled = background(a.ensure(R, { maxAgeMs: 0 })); // A's poll goes out and hangs
      await tick(10);
      const shown: Snapshot[] = [];
      const off = b.subscribe(R, () => shown.push(b.snapshot(R)));
      const joined = background(b.ensure(R, { maxAgeMs: 0 })); // B's focus joins A's request
      await tick(10);
      expect(b.snapshot(R).claim).toMatchObject({ mine: false });
      const refetched = background(a.refetch(R, { skipInFlight: true })); // A's mutation invalidates
      await tick(10);
      expect(states(c.host.calls)).toEqual(["answered", "aborted", "in-flight"]);
      c.host.calls[2]!.respond(200, { n: 2 });
      for (const p of [polled, refetched, joined]) expect((await until(p)).data).toEqual({ n: 2 });
      await tick(100);
      off();
      expect(shown.map((s) => s.status)).not.toContain("error");
      expect(b.snapshot(R)).toMatchObject({ status: "success", data: { n: 2 } });
      expect(c.host.calls).toHaveLength(3);
    });
  }
});

function devices() {
  const c = cluster(2, { settleMs: 0 });
  return { c, a: c.stores[0]!, b: c.stores[1]! };
}
