/**
 * Issue 15, a takeover's cost: after the worker died and the next one took its claim over, the
 * tabs start the generation after it only STANDBY_AFTER_TAKEOVER_MS later, so that its boot (a
 * script, a doc synced from the new worker) does not compete with the takeover's request and its
 * delivery. At boot the standby still starts at once. Real ports, docs and stores; FakeLocks.
 */
import { describe, expect, it } from "vitest";
import { simulateCrash } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import { STANDBY_AFTER_TAKEOVER_MS } from "../../src/worker/worker-bounds.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/standby-after-takeover";

describe("the standby after a takeover", () => {
  it("starts once the takeover's data has reached every tab, not beside it; at boot it starts at once", async () => {
    const host = new Host();
    const b = browser(host);
    const gen = (n: number) => `shared-fetch:${b.name}:${n}`;
    const [t1, t2] = [b.tab(), b.tab()];
    const p1 = t1.ensure({ url: API });
    const p2 = t2.ensure({ url: API });
    await host.whenCalls(1);
    // Boot: the tab that did not start the worker starts the standby without waiting.
    await until(() => b.workers.has(gen(1)));
    simulateCrash(t1);
    const calls = await host.whenCalls(2);
    const answeredAt = performance.now();
    calls[1]!.respond(200, { from: "the next worker" });
    await expect(p1).resolves.toMatchObject({ status: "success", data: { from: "the next worker" } });
    await expect(p2).resolves.toMatchObject({ status: "success", data: { from: "the next worker" } });
    // The takeover is done and delivered; the generation after it has not been started yet.
    expect(b.workers.has(gen(2))).toBe(false);
    await until(() => b.workers.has(gen(2)));
    expect(performance.now() - answeredAt).toBeGreaterThan(STANDBY_AFTER_TAKEOVER_MS / 2);
    expect(host.calls).toHaveLength(2);
  });
});
