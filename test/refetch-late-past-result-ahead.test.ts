/**
 * Clock skew and a refetch heard late (ASKED_AT: a SharedWorker's tab asked before its message
 * reached the worker's store) that skips what is in flight (skipInFlight: the hooks' refetch(),
 * invalidateQueries after a mutation). A device whose clock runs ahead sent its request before the
 * ask; its result reached the store after the ask, before the ask did. Dated in our future when
 * it arrived, it is trusted as new as its arrival, which says nothing of when its request was
 * sent: it was taken for one sent since the ask, and the refetch was answered with data read
 * before the mutation. Heard in time, the same refetch sends a request; heard late, so it does now.
 * So does one asked while the store is still starting (judged as of the ask once it is ready).
 */
import { describe, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { registerConnector } from "../src/core/connectors.ts";
import { ASKED_AT } from "../src/core/store-options.ts";
import { createSharedFetchStore } from "../src/index.ts";
import { cluster, tick, until, URL_A as url, useFakeClock } from "./harness/replicas.ts";

const R = { url };
const SKEW = 10_000;

describe("clock skew: a skipInFlight refetch heard late is not answered by a result dated ahead that arrived after the ask", () => {
  it("the device's request, sent before the ask, does not answer it: a request is sent", async () => {
    useFakeClock();
    const c = cluster(2, { settleMs: 0 });
    const [a, ahead] = c.stores;
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    // On the device, cut off, its clock SKEW ahead: its request is sent and answered.
    c.net.isolate(c.docOf(ahead!));
    vi.setSystemTime(Date.now() + SKEW);
    await until(ahead!.ensure(R));
    vi.setSystemTime(Date.now() - SKEW);
    await tick(10);
    const askedAt = Date.now(); // the app refetches (after a mutation), its message on its way
    await tick(10);
    c.net.heal(c.docOf(ahead!)); // the device's result arrives
    await tick(10);
    expect(a!.snapshot(R).data).toEqual({ n: 1 });
    const refetched = a!.refetch(R, { skipInFlight: true, [ASKED_AT]: askedAt } as never);
    expect((await until(refetched)).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
  });

  it("asked while the store is still starting, the result its sync brings in after the ask does not answer it either", async () => {
    useFakeClock();
    const c = cluster(1, { settleMs: 0, locks: null });
    const [ahead] = c.stores;
    let n = 0;
    c.host.auto = () => ({ status: 200, body: { n: ++n } });
    vi.setSystemTime(Date.now() + SKEW);
    await until(ahead!.ensure(R)); // sent on the device's clock, before the ask
    vi.setSystemTime(Date.now() - SKEW);
    await tick(10);
    const doc = new Y.Doc();
    let synced!: () => void;
    registerConnector(doc, { whenSynced: new Promise<void>((resolve) => (synced = resolve)), crossDevice: false });
    const b = createSharedFetchStore({ doc, fetch: c.host.fetch, settleMs: 0, locks: null });
    const refetched = b.refetch(R, { skipInFlight: true });
    await tick(10);
    c.net.add(doc); // the device's result arrives
    await tick(10);
    synced();
    expect((await until(refetched)).data).toEqual({ n: 2 });
    expect(c.host.calls).toHaveLength(2);
    b.destroy();
  });
});
