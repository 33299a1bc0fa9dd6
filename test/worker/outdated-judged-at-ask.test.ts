/**
 * A SharedWorker tab's ensure with a freshness demand reads pending (the worker will fetch again)
 * only when the worker's store will judge the shown result too old, and that store judges it as of
 * the ask's time, which the tab sends with it. The tab judged by a second read of its clock: on a
 * busy machine the ms ticked between the two, and a result at the edge of the window read pending
 * (its listeners told of a fetch) though the worker answered with it at once, no request sent.
 * Deterministic: the ask's read of Date.now is T, every later one T + 1. Real ports, stores and
 * Yjs docs; the simulated host; FakeLocks.
 */
import { expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser } from "./browser-sim.ts";

const req = { url: "http://127.0.0.1:9/api/outdated-at-ask" };

it("an ensure whose window the shown result meets at the ask's ms, judged while the clock ticks: no pending, answered with it, no request", async () => {
  const host = new Host();
  const t = browser(host).tab();
  const first = t.ensure(req);
  (await host.whenCalls(1))[0]!.respond(200, { v: 1 });
  await first;
  const seen: string[] = [];
  t.subscribe(req, () => seen.push(t.snapshot(req).status));
  const at = t.resultInfo(req)!.at!;
  const now = Date.now();
  // Within the window at `now`, out of it a ms later.
  const maxAgeMs = now - at + 1;
  const ticking = vi
    .spyOn(Date, "now")
    .mockReturnValueOnce(now)
    .mockReturnValue(now + 1);
  let asked;
  try {
    asked = t.ensure(req, { maxAgeMs });
  } finally {
    ticking.mockRestore();
  }
  expect(t.snapshot(req)).toMatchObject({ status: "success", data: { v: 1 } });
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(seen).not.toContain("pending");
  expect(host.calls).toHaveLength(1);
});
