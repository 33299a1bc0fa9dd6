/**
 * The outran rule (freshness.ts) met by an error: the other side of a partition recorded a result
 * and then, at a higher revision still, an error (its refetch failed while cut off), both read
 * before this replica's request was sent. The error is no answer to that request: it runs on, its
 * result replaces the error at that revision (an error never overwrites a result, invariant 7,
 * and a result replaces an error of its revision), and every replica of the three ends on it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

describe("outran: a request in flight is not answered by an older error at a higher revision", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it("three replicas: a device reconnecting while its request runs gets its own result, recorded over the other side's older error", async () => {
    const c = cluster(3, { settleMs: 0 });
    const [a, b, other] = c.stores;
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    c.net.isolate(c.docOf(b!));
    for (let i = 0; i < 3; i++) await until(a!.refetch(R)); // revisions 1 to 3, { n: 3 }
    c.host.auto = () => ({ status: 503, body: "down" });
    expect((await until(a!.refetch(R))).status).toBe("error"); // revision 4: an error
    expect(other!.snapshot(R).status).toBe("error");
    await tick(HOUR);
    c.host.auto = undefined;
    const ensured = background(b!.ensure(R)); // b's revision 1, sent an hour after that error
    await tick(10);
    const call = c.host.calls[4]!;
    expect(call.state).toBe("in-flight");
    c.net.heal(c.docOf(b!));
    await tick(10);
    expect(call.aborted).toBe(false);
    call.respond(200, { n: "newer" });
    const snap = await until(ensured, 10, 5_000);
    expect(snap).toEqual({ status: "success", data: { n: "newer" } });
    await tick(10);
    for (const s of [a!, b!, other!]) {
      expect(s.snapshot(R)).toEqual({ status: "success", data: { n: "newer" } });
      expect(s.resultInfo(R)!.rev).toBe(4);
    }
    expect(c.host.calls).toHaveLength(5);
    // The next refetch numbers past both sides.
    c.host.auto = () => ({ status: 200, body: { n: "next" } });
    expect((await until(other!.refetch(R))).data).toEqual({ n: "next" });
    expect(b!.resultInfo(R)!.rev).toBe(5);
  });

  it("an error at a higher revision whose request was sent after ours still answers the wait", async () => {
    const c = cluster(2, { settleMs: 0 });
    const [a, b] = c.stores;
    c.net.isolate(c.docOf(b!));
    const ensured = background(b!.ensure(R)); // b's revision 1, sent first
    await until(c.host.whenCalls(1), 10, 5_000);
    const first = c.host.calls[0]!;
    await tick(60_000);
    c.host.auto = () => ({ status: 503, body: "down" });
    for (let i = 0; i < 2; i++) await until(a!.refetch(R)); // a's revisions 1 and 2: errors, sent later
    c.net.heal(c.docOf(b!));
    await tick(10);
    expect(first.aborted).toBe(true);
    expect((await until(ensured, 10, 5_000)).status).toBe("error");
  });
});
