/**
 * A tab opens while the standby worker, started by another tab, stands by; that other tab
 * crashes (the standby dies with its renderer) before the standby's answer (`standing`) reached
 * the new tab. Seen in real chromium under load (test/browser/worker.test.ts, "the tab that
 * started the standby crashes…"): the new tab, which only watched the standby's lock once told
 * `standing`, never heard of its death, started no successor, and the live worker's death then
 * waited for a cold worker. Real ports, docs and stores; FakeLocks (crash = the browser releasing
 * a dead realm's locks); fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { describe, expect, it, vi } from "vitest";
import { simulateCrash } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import type { PortLike } from "../../src/worker/port.ts";
import { STANDBY_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/standby-dies-before-standing";

/** `port` as a tab has it from a worker that dies before anything it says arrives. */
const silent = (port: PortLike): PortLike => ({
  postMessage: (m) => port.postMessage(m),
  addEventListener: () => {},
  removeEventListener: () => {},
  close: () => port.close(),
});

describe("a standby that dies before its answer reaches a tab that turned to it", () => {
  it("is started again by that tab, whose next takeover then finds it: 2 requests, every survivor served by a worker", async () => {
    const b = browser(new Host());
    const next = `shared-fetch:${b.name}:1`;
    const standbyHeld = async () => ((await b.locks.forTab("probe").query()).held ?? []).some((l) => l.name === STANDBY_LOCK_PREFIX + next);
    const [host, starter] = [b.tab(), b.tab()];
    const asks = [host.ensure({ url: API })];
    // Its store dies with its renderer: its ask ends with it.
    void starter.ensure({ url: API }).catch(() => {});
    await b.host.whenCalls(1);
    await vi.waitFor(async () => expect(await standbyHeld()).toBe(true), { timeout: 3000, interval: 2 });
    const dead = b.workers.get(next)!;
    let told = false;
    const survivor = b.tab({
      worker: (name) => {
        const worker = b.start(name);
        if (name !== next || told) return worker;
        told = true;
        return { port: silent(worker.port) };
      },
    });
    asks.push(survivor.ensure({ url: API }));
    // The survivor asked the standby to stand for it too, and its ask waits there in advance.
    await vi.waitFor(() => expect(told && dead.stores()[0]?.inspect().keys[0]?.local?.waiters).toBe(2), { timeout: 3000, interval: 2 });
    // The starter's renderer crashes, with the standby in it.
    starter.destroy();
    b.kill(1);
    await vi.waitFor(
      async () => {
        expect(b.workers.get(next), "a fresh standby of generation 1, started by the survivor").toBeDefined();
        expect(await standbyHeld()).toBe(true);
      },
      { timeout: 3000, interval: 2 },
    );
    expect(b.workers.get(next)).not.toBe(dead);
    simulateCrash(host);
    const calls = await b.host.whenCalls(2);
    calls[1]!.respond(200, { from: "generation 1" });
    for (const ask of asks) await expect(ask).resolves.toMatchObject({ status: "success", data: { from: "generation 1" } });
    expect([host.mode, survivor.mode]).toEqual(["shared-worker", "shared-worker"]);
    expect(b.host.calls).toHaveLength(2);
  });
});
