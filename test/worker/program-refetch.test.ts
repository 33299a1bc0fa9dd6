/**
 * Invariant 11 for a program refetch through the port: the tab's AbortSignal withdraws its
 * interest, and the worker aborts the resolution's requests once no tab waits for it. Real ports,
 * docs and stores; the simulated host (a call's signal is the one the worker's fetch got).
 */
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { browser } from "./browser-sim.ts";

const MAIN = "http://127.0.0.1:9/app/main.ts";

describe("refetchProgram through the port (invariant 11)", () => {
  it("aborting the tab's signal rejects with AbortError and aborts the worker's module request", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, text: "export const v = 1;\n" });
    const b = browser(host);
    const t = b.tab();
    await expect(t.ensureProgram({ url: MAIN })).resolves.toMatchObject({ status: "success" });
    expect(host.calls).toHaveLength(1);
    // The host hangs from now on: the refetch's request waits until someone aborts it.
    host.auto = undefined;
    const controller = new AbortController();
    const refetching = t.refetchProgram({ url: MAIN }, { signal: controller.signal });
    const calls = await host.whenCalls(2);
    expect(calls[1]!.url).toBe(MAIN);
    controller.abort();
    await expect(refetching).rejects.toMatchObject({ name: "AbortError" });
    await new Promise<void>((resolve) => {
      if (calls[1]!.aborted) return resolve();
      const off = host.onCall((c) => c === calls[1] && c.aborted && (off(), resolve()));
    });
    expect(calls[1]!.aborted).toBe(true);
    // The recorded resolution is still shown: an abort writes nothing.
    expect(t.programSnapshot({ url: MAIN })).toMatchObject({ status: "success" });
  });

  it("another tab still waiting keeps the refetch running: only the last waiter's abort reaches the network", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, text: "export const v = 1;\n" });
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    await t1.ensureProgram({ url: MAIN });
    host.auto = undefined;
    const c1 = new AbortController();
    const r1 = t1.refetchProgram({ url: MAIN }, { signal: c1.signal });
    const [, second] = await host.whenCalls(2);
    const r2 = t2.refetchProgram({ url: MAIN });
    // t2's ask reaches the worker and joins the running refetch before t1 withdraws.
    const key = t1.programKeyOf({ url: MAIN });
    while (
      b
        .workerStore()
        .inspect()
        .keys.find((k) => k.key === key)?.local?.waiters !== 2
    )
      await new Promise((r) => setTimeout(r, 2));
    c1.abort();
    await expect(r1).rejects.toMatchObject({ name: "AbortError" });
    expect(second!.aborted).toBe(false);
    second!.respondRaw(200, "export const v = 2;\n");
    await expect(r2).resolves.toMatchObject({ status: "success" });
    expect(host.calls).toHaveLength(2);
  });
});

describe("an explicit program refetch through the port (skipInFlight)", () => {
  it("aborts another tab's resolution in flight (sent before it) and sends its own at once, as TanStack's cancelRefetch: both tabs get the new code", async () => {
    const host = new Host();
    const b = browser(host);
    const [t1, t2] = [b.tab(), b.tab()];
    const first = t1.ensureProgram({ url: MAIN });
    const [call] = await host.whenCalls(1);
    // The deploy comes while that request is out; t2's user asks for what the host serves now.
    const own = t2.refetchProgram({ url: MAIN }, { skipInFlight: true });
    const calls = await host.whenCalls(2);
    expect(call!.state).toBe("aborted");
    calls[1]!.respondRaw(200, "export const v = 2;\n");
    expect((await own).data?.files[0]?.contents).toContain("v = 2");
    const snap = await first;
    expect(snap.status).toBe("success");
    expect(snap.data?.files[0]?.contents).toContain("v = 2");
    expect(host.calls).toHaveLength(2);
  });
});
