/**
 * The crash simulation (internals: dev.crash) lets this replica's Web Locks go, as the browser
 * does for a dead tab: its key locks too, those held at the crash and those it was still queued
 * for. A key lock granted to it after the crash would be held for good (a crashed replica reads
 * nothing more, so it never learns that the claim it waited on finished), and every other tab of
 * the browser would wait behind it for ever on the key's next claim.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../sim/fake-locks.ts";
import { internalsOf } from "../src/internals.ts";
import { background, cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const states = (calls: { state: string }[]) => calls.map((call) => call.state);

describe("a crashed replica (dev.crash) is granted no key lock it was queued for", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  const cases = [
    ["waiting on another tab's claim (its standby queued on the key's lock)", 0],
    ["claiming in the same tick as another tab (its claim queued on the key's lock)", 5],
  ] as const;
  for (const [how, delayMs] of cases)
    it(`one that crashed while ${how}: the other tab's next request is still sent`, async () => {
      const locks = new FakeLocks();
      const c = cluster(0, { settleMs: 0 });
      c.net.delayMs = delayMs;
      const a = c.join({ locks: locks.forTab("a"), browserId: "browser-1" });
      const b = c.join({ locks: locks.forTab("b"), browserId: "browser-1" });
      await tick(20);
      const first = background(a.ensure(R));
      if (delayMs === 0) await tick(10);
      background(b.ensure(R));
      await tick(1);
      internalsOf(b).dev.crash();
      await tick(10);
      c.host.calls[0]!.respond(200, "first");
      expect((await until(first)).data).toBe("first");
      await tick(10);
      const again = background(a.refetch(R));
      await tick(10);
      expect(states(c.host.calls)).toEqual(["answered", "in-flight"]);
      c.host.calls[1]!.respond(200, "second");
      expect((await until(again)).data).toBe("second");
    });
});
