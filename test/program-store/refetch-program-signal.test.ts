/**
 * README, "One replica per browser (SharedWorker)", Cancellation: "`refetchProgram(req, { signal })`
 * is withdrawn by its signal like `ensure` (in both modes)". The worker mode is pinned by
 * test/worker/program-refetch.test.ts; this is the per-tab store's (invariant 11: the abort reaches
 * the module request in flight, and an aborted request writes nothing). Real Y.Docs and stores;
 * the simulated host (a call's signal is the one the store's fetch got).
 */
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { cluster } from "../harness/replicas.ts";

const MAIN = "http://127.0.0.1:9/app/main.ts";

describe("refetchProgram in a per-tab store (invariant 11)", () => {
  it("aborting its signal rejects with AbortError and aborts the module request; the recorded resolution stays", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, text: "export const v = 1;\n" });
    const c = cluster(2, { fetch: host.fetch, settleMs: 0 });
    const [a, b] = c.stores;
    await expect(a!.ensureProgram({ url: MAIN })).resolves.toMatchObject({ status: "success" });
    // The host hangs from now on: the refetch's request waits until someone aborts it.
    host.auto = undefined;
    const controller = new AbortController();
    const refetching = a!.refetchProgram({ url: MAIN }, { signal: controller.signal });
    const calls = await host.whenCalls(2);
    expect(calls[1]!.url).toBe(MAIN);
    controller.abort();
    await expect(refetching).rejects.toMatchObject({ name: "AbortError" });
    expect(calls[1]!.aborted).toBe(true);
    // An abort writes nothing: both replicas still show the recorded resolution, and nobody works on it.
    for (const store of [a!, b!]) {
      const snap = store.programSnapshot({ url: MAIN });
      expect(snap).toMatchObject({ status: "success" });
      expect(snap.claim).toBeUndefined();
    }
  });
});
