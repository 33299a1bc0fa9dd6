/**
 * Freshness across device clocks: a result's `at` is its writer's wall clock, and a device whose
 * clock runs ahead dates its results in everyone else's future. Each replica trusts an `at` no
 * later than when the record reached it (its own clock): such a result is as young as its arrival, never younger, so a poll or a staleTime
 * on another device ages it from then.
 * Each device is a store on its own Y.Doc, synced; this process's clock is the reader's.
 */
import { describe, expect, it } from "vitest";
import { cluster, onDevice, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const URL_A = { url };

const HOUR = 3_600_000;

function devices(count: number) {
  useFakeClock();
  const c = cluster(count, { settleMs: 0 });
  let n = 0;
  c.host.auto = () => ({ status: 200, body: { n: ++n } });
  return c;
}

describe("clock skew: a result from a device whose clock runs ahead ages from its arrival here", () => {
  it("a demand of another device ages it from when it arrived: stale one window later, not an hour later", async () => {
    const c = devices(2);
    const [ahead, b] = c.stores;
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    // Just arrived: fresh for a 10 s window.
    expect((await until(b!.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ n: 1 });
    expect(c.host.calls).toHaveLength(1);
    await tick(10_000);
    // Ten seconds after it arrived it is ten seconds old here (it was dated an hour ahead).
    expect((await until(b!.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("resultInfo's `at` (TanStack's dataUpdatedAt) is no later than when this replica first read the result, and stays so", async () => {
    const c = devices(2);
    const [ahead, b] = c.stores;
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    // Read as it arrives, as the hooks' bridge reads a result for a query it shows.
    const arrived = Date.now();
    expect(b!.resultInfo(URL_A)!.at).toBe(arrived);
    await tick(5_000);
    expect(b!.resultInfo(URL_A)!.at).toBe(arrived);
    // The writer dates its own result on its own clock, as it did.
    await onDevice(c, ahead!, HOUR, async () => expect(ahead!.resultInfo(URL_A)!.at).toBeLessThanOrEqual(Date.now() - 5_000));
  });

  it("a device whose clock runs an hour behind the others polls again once they stop: their last result is not an hour in its future", async () => {
    const c = devices(2);
    const [other, behind] = c.stores;
    // This process's clock is the one behind; the other device's runs an hour ahead of it.
    await onDevice(c, other!, HOUR, () => until(other!.ensure(URL_A)));
    // This device's poll ticks, 10 s apart: the first meets the result just recorded; by the
    // next ones the other device has stopped polling, and this one sends each interval's request.
    expect((await until(behind!.ensure(URL_A, { maxAgeMs: 9_975 }))).data).toEqual({ n: 1 });
    await tick(10_000);
    expect((await until(behind!.ensure(URL_A, { maxAgeMs: 9_975 }))).data).toEqual({ n: 2 });
    await tick(10_000);
    expect((await until(behind!.ensure(URL_A, { maxAgeMs: 9_975 }))).data).toEqual({ n: 3 });
    expect(c.host.calls).toHaveLength(3);
  });

  it("an error dated ahead ages from its arrival too", async () => {
    const c = devices(2);
    const [ahead, b] = c.stores;
    c.host.auto = () => ({ status: 503, body: {} });
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    c.host.auto = () => ({ status: 200, body: { ok: true } });
    expect((await until(b!.ensure(URL_A, { maxAgeMs: 10_000 }))).status).toBe("error");
    await tick(10_000);
    expect((await until(b!.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ ok: true });
    expect(c.host.calls).toHaveLength(2);
  });

  it("a result dated ahead, loaded at boot (a reload's persisted doc), is as young as the boot: fresh, then stale one window after it", async () => {
    const c = devices(1);
    const [ahead] = c.stores;
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    await tick(60_000);
    const reloaded = c.join({}, c.docOf(ahead!));
    ahead!.destroy();
    c.crash(ahead!);
    expect((await until(reloaded.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ n: 1 });
    await tick(10_000);
    expect((await until(reloaded.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("polls of devices whose clocks run an hour ahead, right and an hour behind send one request per interval between them (README: one request per interval for K devices)", async () => {
    const c = devices(3);
    const [ahead, right, behind] = c.stores;
    const tick3 = [
      [ahead!, HOUR],
      [right!, 0],
      [behind!, -HOUR],
    ] as const;
    const intervals = 6;
    for (let i = 0; i < intervals; i++)
      for (const [device, skew] of tick3) {
        // Each device's poll tick on its own clock, 3 s apart (refetchInterval: 10 s).
        await onDevice(c, device, skew, () => until(device.ensure(URL_A, { maxAgeMs: 9_975 })));
        await tick(10_000 / 3);
      }
    expect(c.host.calls).toHaveLength(intervals);
  });
});

// A result this replica did not ask for when it arrived: a page another device filled long ago,
// opened here later; a reload's records, asked for a while after the boot. First read then, it
// was as young as that read, and fresh for a staleTime more.
describe("clock skew: a result dated ahead ages from its arrival here, even when nothing here read it then", () => {
  it("another device's result, first asked for here 30 s after it arrived, is 30 s old: a 10 s demand fetches again", async () => {
    const c = devices(2);
    const [ahead, b] = c.stores;
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    await tick(30_000);
    expect((await until(b!.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("its resultInfo (TanStack's dataUpdatedAt) is its arrival, however much later it is first read", async () => {
    const c = devices(2);
    const [ahead, b] = c.stores;
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    const arrived = Date.now();
    await tick(30_000);
    expect(b!.resultInfo(URL_A)!.at).toBe(arrived);
  });

  it("a result dated ahead in the doc at boot, first asked for a minute later, is as young as the boot (README: clamped to the boot)", async () => {
    const c = devices(1);
    const [ahead] = c.stores;
    await onDevice(c, ahead!, HOUR, () => until(ahead!.ensure(URL_A)));
    const reloaded = c.join({}, c.docOf(ahead!));
    ahead!.destroy();
    c.crash(ahead!);
    await tick(60_000);
    expect((await until(reloaded.ensure(URL_A, { maxAgeMs: 10_000 }))).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });
});
