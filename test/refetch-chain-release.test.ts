/**
 * Invariant 8 across a chain of replaced requests: back-to-back skipInFlight refetches each abort
 * the request before them (cancelRefetch), the claim standing for the newest. Two of them in one
 * task replace a request whose claim was never written; when every asker then goes, the claim
 * that stood (the first request's) must go with them, never left pending for nobody.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { background, cluster, tick, twoTabs, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };

describe("back-to-back refetches, every asker gone: the claim is released", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  for (const where of ["a replica without key locks (a device)", "a tab (key locks)"] as const) {
    it(`on ${where}: no claim is left and the key is not pending`, async () => {
      const a = where.startsWith("a tab") ? (await twoTabs({ settleMs: 0 })).a : cluster(1, { settleMs: 0 }).stores[0]!;
      const asks = [new AbortController(), new AbortController(), new AbortController()];
      background(a.ensure(R, { signal: asks[0]!.signal }));
      await tick(10);
      expect(a.snapshot(R).claim).toMatchObject({ mine: true });
      background(a.refetch(R, { skipInFlight: true, signal: asks[1]!.signal }));
      background(a.refetch(R, { skipInFlight: true, signal: asks[2]!.signal }));
      for (const ask of asks) ask.abort();
      await tick(100);
      expect(a.snapshot(R).claim).toBeUndefined();
      expect(a.snapshot(R).status).toBe("idle");
    });
  }
});
