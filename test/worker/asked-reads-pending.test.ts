/**
 * Invariant 8 in SharedWorker mode (README, "Tabs are views": "a key asked and not yet answered
 * reads `pending`, never `idle`"). The tab shows the worker's snapshots as last pushed; a push the
 * worker sent before it got the tab's ask (the answer to the `sub` a hook's subscribe sends, say)
 * is stale for that ask. So from the ask until its answer (or its withdrawal) the tab's view reads
 * pending: at once, never idle on the way, and with the data kept for an ask that makes the worker
 * fetch again (a refetch, an ensure whose freshness demand the shown result misses). Real ports,
 * stores and Yjs docs; the simulated host; FakeLocks.
 */
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { BrowserStore } from "../../src/worker/connect-browser.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/asked";
const MAIN = "http://127.0.0.1:9/app/asked.ts";
const req = { url: API };

/** What `t`'s listeners read for `API`, one entry per call: status, and the data's `v`. */
function watch(t: BrowserStore): string[] {
  const seen: string[] = [];
  t.subscribe(req, () => {
    const s = t.snapshot(req);
    seen.push(s.data === undefined ? s.status : `${s.status} v${(s.data as { v: number }).v}`);
  });
  return seen;
}

/** Until the worker answered the hello: its answer to the `sub` sent behind the hello came first (a port keeps order). */
async function served(t: BrowserStore): Promise<void> {
  const before = t.replicaId;
  await until(() => t.replicaId !== before);
}

describe("invariant 8 in SharedWorker mode: asked and not yet answered reads pending", () => {
  it("subscribe then ensure at once (as a hook does): the worker's idle answer to the subscribe never shows", async () => {
    const host = new Host();
    const t = browser(host).tab();
    const seen = watch(t);
    const asked = t.ensure(req);
    expect(t.snapshot(req).status).toBe("pending");
    const [call] = await host.whenCalls(1);
    call!.respond(200, { v: 1 });
    await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
    expect(seen).not.toContain("idle");
    expect(seen.at(-1)).toBe("success v1");
  });

  it("subscribed, the worker's idle already shown, then ensure: snapshot() reads pending right after the ask, as createSharedFetchStore's does", async () => {
    const host = new Host();
    const t = browser(host).tab();
    const seen = watch(t);
    expect(t.snapshot(req).status).toBe("pending");
    await served(t);
    // Pending until the worker's answer to the subscription (the tab cannot tell before), then its idle.
    expect(t.snapshot(req).status).toBe("idle");
    expect(seen.splice(0)).toEqual(["idle"]);
    const asked = t.ensure(req);
    expect(t.snapshot(req).status).toBe("pending");
    // The listener is told of the change, at the ask.
    expect(seen).toEqual(["pending"]);
    const [call] = await host.whenCalls(1);
    call!.respond(200, { v: 1 });
    await asked;
    expect(seen).not.toContain("idle");
    expect(seen.at(-1)).toBe("success v1");
  });

  it("refetch of a shown result: pending with the data kept from the ask on, never the old result again before the new one", async () => {
    const host = new Host();
    const t = browser(host).tab();
    const seen = watch(t);
    const first = t.ensure(req);
    (await host.whenCalls(1))[0]!.respond(200, { v: 1 });
    await first;
    seen.length = 0;
    const again = t.refetch(req);
    const shown = t.snapshot(req);
    expect(shown).toMatchObject({ status: "pending", data: { v: 1 } });
    // One object until it changes (useSyncExternalStore).
    expect(t.snapshot(req)).toBe(shown);
    const calls = await host.whenCalls(2);
    calls[1]!.respond(200, { v: 2 });
    await expect(again).resolves.toMatchObject({ status: "success", data: { v: 2 } });
    expect(seen[0]).toBe("pending v1");
    expect(seen).not.toContain("success v1");
    expect(seen.at(-1)).toBe("success v2");
    expect(t.snapshot(req)).toMatchObject({ status: "success", data: { v: 2 } });
  });

  it("an ensure whose maxAgeMs the shown result misses reads pending at once (the worker fetches again); one it meets keeps the result shown", async () => {
    const host = new Host();
    const t = browser(host).tab();
    const seen = watch(t);
    const first = t.ensure(req);
    (await host.whenCalls(1))[0]!.respond(200, { v: 1 });
    const result = await first;
    const shown = t.snapshot(req);
    // Met (no demand, or a window the result is within): answered with the result, no pending on the way.
    await expect(t.ensure(req, { maxAgeMs: 60_000 })).resolves.toMatchObject({ status: "success", data: { v: 1 } });
    expect(t.snapshot(req)).toBe(shown);
    expect(host.calls).toHaveLength(1);
    seen.length = 0;
    // maxAgeMs 0 (what the hooks pass with TanStack's default staleTime): no result is that fresh.
    const again = t.ensure(req, { maxAgeMs: 0 });
    expect(t.snapshot(req)).toMatchObject({ status: "pending", data: { v: 1 } });
    (await host.whenCalls(2))[1]!.respond(200, { v: 2 });
    await expect(again).resolves.toMatchObject({ status: "success", data: { v: 2 } });
    expect(result).toMatchObject({ data: { v: 1 } });
    expect(seen[0]).toBe("pending v1");
    expect(seen).not.toContain("success v1");
  });

  it("withdrawn by its signal before any answer: pending from the ask, idle again once withdrawn, listeners told both", async () => {
    const host = new Host();
    const t = browser(host).tab();
    const seen = watch(t);
    await served(t);
    expect(seen.splice(0)).toEqual(["idle"]);
    const controller = new AbortController();
    const asked = t.ensure(req, { signal: controller.signal });
    expect(t.snapshot(req).status).toBe("pending");
    controller.abort();
    await expect(asked).rejects.toMatchObject({ name: "AbortError" });
    expect(t.snapshot(req).status).toBe("idle");
    expect(seen.slice(0, 2)).toEqual(["pending", "idle"]);
    // Once the worker has had the ask and its withdrawal, nobody works on the key: idle it stays.
    await until(() => t.snapshot(req).status === "idle" && host.calls.every((c) => c.settled || c.aborted));
    await new Promise((r) => setTimeout(r, 20));
    expect(t.snapshot(req).status).toBe("idle");
  });

  it("refetchProgram of a shown resolution: pending with the program kept until the worker answers", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, text: "export const v = 1;\n" });
    const t = browser(host).tab();
    const seen: string[] = [];
    t.subscribeProgram({ url: MAIN }, () => seen.push(t.programSnapshot({ url: MAIN }).status));
    await t.ensureProgram({ url: MAIN });
    seen.length = 0;
    host.auto = undefined;
    const again = t.refetchProgram({ url: MAIN });
    const shown = t.programSnapshot({ url: MAIN });
    expect(shown.status).toBe("pending");
    expect(shown.data?.files).toHaveLength(1);
    (await host.whenCalls(2))[1]!.respondRaw(200, "export const v = 2;\n");
    await expect(again).resolves.toMatchObject({ status: "success" });
    expect(seen[0]).toBe("pending");
    expect(seen.slice(0, -1)).not.toContain("success");
    expect(seen.at(-1)).toBe("success");
  });
});
