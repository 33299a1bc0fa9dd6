/**
 * A refetch is judged as of when the app asked, not when a store already in sync hears it. A tab
 * of the SharedWorker replica refetches while its hello is still under way; meanwhile another
 * tab's request, sent after that ask, records a result. The worker (ready, in sync) heard the
 * refetch after that result and asked past it: a second request for what the first one already
 * answered (as the newer request the refetch wanted; its own, had it been heard in time, would
 * have been joined by the other tab's ensure). Only a starting store judged an ask by its time.
 * So does one in flight at the ask and recorded since (a refetch joins a request already claimed),
 * unless the refetch skips it (skipInFlight); a result recorded before the ask, or in its ms, answers none.
 * Real Y.Docs and stores; fake timers on Date only.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { warmWorkerHeldHello } from "./browser-sim.ts";

const req = { url: "https://api.example.test/refetch-late" };
afterEach(() => void vi.useRealTimers());

const ASKED = 2_000;

/** Another tab's request sent at `sentAt` and answered at `answeredAt`; this tab refetches at ASKED, heard once its hello passes. */
async function refetchHeardLate(sentAt: number, answeredAt: number, skipInFlight = false) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(1_000);
  const host = new Host();
  const { first, second, open } = await warmWorkerHeldHello(host);
  let asked: Promise<unknown> | undefined;
  // Each event at its time, in order: the refetch (unheard), the request sent, its answer.
  const ask = () => {
    vi.setSystemTime(ASKED);
    asked = second.refetch(req, { skipInFlight });
  };
  if (sentAt > ASKED) ask();
  vi.setSystemTime(sentAt);
  const done = first.ensure(req);
  await host.whenCalls(2);
  if (!asked && answeredAt > ASKED) ask();
  vi.setSystemTime(answeredAt);
  host.calls[1]!.respond(200, { n: 1 });
  host.auto = () => ({ status: 200, body: { n: 2 } });
  await expect(done).resolves.toMatchObject({ status: "success", data: { n: 1 } });
  if (!asked) ask();
  vi.setSystemTime(2_030);
  open();
  return { host, asked: asked! };
}

describe("a refetch heard late by the SharedWorker's store, already in sync", () => {
  it("another tab's request sent after the refetch was asked answers it: one request", async () => {
    const { host, asked } = await refetchHeardLate(2_010, 2_020);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(1);
  });

  it("one in flight when the refetch was asked, recorded since, answers it (joined): one request", async () => {
    const { host, asked } = await refetchHeardLate(1_990, 2_020);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(1);
  });

  it("skipInFlight: one in flight when the refetch was asked does not answer it; the refetch sends its own", async () => {
    const { host, asked } = await refetchHeardLate(1_990, 2_020, true);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(2);
  });

  it("one recorded before the refetch was asked does not answer it: the refetch sends its own", async () => {
    const { host, asked } = await refetchHeardLate(1_990, 1_995);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(2);
  });

  it("one recorded in the ms of the ask, before it (the app refetched right after that result): the refetch sends its own", async () => {
    const { host, asked } = await refetchHeardLate(1_990, ASKED);
    await expect(asked).resolves.toMatchObject({ status: "success", data: { n: 2 } });
    expect(host.calls.filter((c) => c.url === req.url)).toHaveLength(2);
  });
});
