/**
 * A refetch that skips the request in flight (`skipInFlight`: every hooks' refetch(),
 * refetchQueries and invalidateQueries, after a mutation) asked after a partition healed: the
 * other side brought older data at a higher revision, over which the claimant's request in flight
 * records its result (freshness.ts, outran). That request was sent before the refetch was asked
 * (maybe before the mutation): its result is no answer to it; a request sent after the call is.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const HOUR = 3_600_000;

describe("skipInFlight over older data a partition brought: the in-flight request's result does not answer the refetch", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  for (const who of ["joiner", "claimant"] as const) {
    const title =
      who === "joiner"
        ? "asked on the replica that waits on the claim: the request in flight answers the ensure that joined it, a request sent after the call answers the refetch"
        : "asked on the claimant itself (cancelRefetch): the request in flight is aborted and one sent at once answers both the refetch and the ensure that sent the first";
    it(title, async () => {
      const c = cluster(3, { settleMs: 0 });
      const [a, joiner, device] = c.stores;
      c.net.isolate(c.docOf(device!));
      c.host.auto = () => ({ status: 200, body: { n: "an hour ago" } });
      for (let i = 0; i < 5; i++) await until(device!.refetch(R)); // the device's revisions 1 to 5
      await tick(HOUR);
      c.host.auto = undefined;
      const first = background(a!.ensure(R)); // revision 1 here, in flight
      await tick(10);
      c.net.heal(c.docOf(device!));
      await tick(10);
      const asker = who === "joiner" ? joiner! : a!;
      const refetched = background(asker.refetch(R, { skipInFlight: true }));
      await tick(10);
      const inFlight = c.host.calls[5]!;
      if (who === "claimant") {
        // The refetch's own replica holds the request: aborted at the network, the new one sent now.
        expect(c.host.calls.map((call) => call.state).slice(5)).toEqual(["aborted", "in-flight"]);
        c.host.calls[6]!.respond(200, { n: "sent after the refetch" });
        expect((await until(first, 10, 5_000)).data).toEqual({ n: "sent after the refetch" });
      } else {
        expect(c.host.calls).toHaveLength(6);
        c.host.auto = () => ({ status: 200, body: { n: "sent after the refetch" } });
        inFlight.respond(200, { n: "sent before the refetch" });
        expect((await until(first, 10, 5_000)).data).toEqual({ n: "sent before the refetch" });
        await tick(10);
      }
      expect((await until(refetched, 10, 5_000)).data).toEqual({ n: "sent after the refetch" });
      expect(c.host.calls).toHaveLength(7);
      await tick(10);
      for (const s of [a, joiner, device]) expect(s!.snapshot(R).data).toEqual({ n: "sent after the refetch" });
    });
  }
});
