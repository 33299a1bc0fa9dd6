/**
 * An ask whose time is given (ASKED_AT: a SharedWorker tab's, or useProgram's window since the
 * app's set) is judged as of that time, also when the store hears it in that same ms. Before, the
 * store kept a given time only when strictly in its past, then read the clock again to judge: on
 * a busy machine the ms ticked in between, and a result at the edge of the ask's freshness window
 * was taken for too old, one request more than the ask needed.
 * Deterministic: the first read of Date.now in the call is the ask's ms, every later one the next.
 */
import { expect, it, vi } from "vitest";
import { ASKED_AT } from "../src/core/store-options.ts";
import { cluster, URL_A as url, until, useFakeClock } from "./harness/replicas.ts";

const REQ = { url };

it("an ensure asked at T with maxAgeMs 100, heard in T, is met by a result sent at T - 99 though the clock ticks while it is judged", async () => {
  useFakeClock();
  vi.setSystemTime(1_000);
  const c = cluster(1, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  const [a] = c.stores;
  expect((await until(a!.ensure(REQ))).data).toEqual({ n: 1 });
  vi.setSystemTime(1_099);
  const ticking = vi.spyOn(Date, "now").mockReturnValueOnce(1_099).mockReturnValue(1_100);
  const ensured = a!.ensure(REQ, { maxAgeMs: 100, [ASKED_AT]: 1_099 } as never);
  ticking.mockRestore();
  expect((await until(ensured)).data).toEqual({ n: 1 });
  expect(c.host.calls).toHaveLength(1);
});
