/**
 * A claim carries its writer's time (`at`): a joiner takes a higher revision whose data was read
 * before it for older data and waits for the claimant's result (joiner-over-older-revision). A
 * claimant whose clock runs ahead dated its claim in the joiner's future: the other side's result,
 * read after the claim was written, looked older, and the joiner waited for the claimant's slow
 * request. The claim's time counts no later than when the joiner first saw it, as a result's does.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, onDevice, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

describe("a claimant whose clock runs ahead: its joiner is answered by data read after the claim (freshness across clocks)", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("a claimant an hour ahead: the other side's higher revision, read a minute after the claim, answers the joiner at once", async () => {
    const c = cluster(3, { settleMs: 0 });
    const [ahead, joiner, device] = c.stores as [(typeof c.stores)[0], (typeof c.stores)[0], (typeof c.stores)[0]];
    c.net.isolate(c.docOf(device));
    c.host.auto = undefined;
    await onDevice(c, ahead, HOUR, async () => {
      background(ahead.ensure(R)); // revision 1 here, its claim dated an hour ahead
      await tick(10);
    });
    await tick(10);
    const joined = background(joiner.ensure(R));
    let answered: unknown;
    void joined.then(
      (s) => (answered = s.data),
      () => {},
    );
    await tick(60_000);
    c.host.auto = () => ({ status: 200, body: { n: "later" } });
    for (let i = 0; i < 2; i++) await until(device.refetch(R));
    c.net.heal(c.docOf(device));
    await tick(10);
    expect(c.host.calls[0]!.state).toBe("in-flight");
    expect(answered).toEqual({ n: "later" });
  });
});
