/**
 * The SharedWorker replica retires once no tab is left. A single-page app that logs out destroys
 * its store in every tab but keeps the pages: the worker, which lives as long as they do, kept the
 * user's doc in memory and its socket to the sync server open (with the user's token), and the
 * next user's tabs were served by it. Now it closes its doc, stores and connections once every
 * tab has left for RETIRE_AFTER_MS, and a tab that comes later starts a fresh worker. A tab that
 * comes within that time (a reload) keeps it. Real ports, docs and stores; FakeLocks.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { internalsOf } from "../../src/internals.ts";
import { RETIRE_AFTER_MS } from "../../src/worker/browser-replica.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/retire";
const RETIRE_MS = 60;

describe("the worker replica with no tab left", () => {
  it("retires once every tab's store is destroyed: its store ends, and a later tab is served by a fresh worker", async () => {
    expect(RETIRE_AFTER_MS).toBeGreaterThan(RETIRE_MS);
    const host = new Host();
    let n = 0;
    host.auto = () => ({ status: 200, body: { n: ++n } });
    const b = browser(host, { retireAfterMs: RETIRE_MS });
    const [t1, t2] = [b.tab(), b.tab()];
    for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    const first = b.workerStore(0);
    t1.destroy();
    // One tab left: the worker serves on.
    await new Promise((r) => setTimeout(r, RETIRE_MS * 3));
    expect(b.retired).toEqual([]);
    await expect(t2.refetch({ url: API })).resolves.toMatchObject({ data: { n: 2 } });
    t2.destroy();
    // The worker, and the next generation's, standing by for it.
    await until(() => b.retired.length === 2);
    expect(b.retired.sort()).toEqual([`shared-fetch:${b.name}:0`, `shared-fetch:${b.name}:1`]);
    expect(internalsOf(first).engine.stage).toBe("destroyed");
    // The next user's tab: a fresh worker, which reads what the last one stored.
    const t3 = b.tab({ identity: "next-user" });
    await expect(t3.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
    expect(b.workerStore(0)).not.toBe(first);
    expect(t3.mode).toBe("shared-worker");
  });

  it("a tab that comes within the time (a reload) keeps the worker, with its doc", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { n: 1 } });
    // Long enough for the next tab's hello on a loaded machine; the wait below outlasts it.
    const grace = 2000;
    const b = browser(host, { retireAfterMs: grace });
    const t1 = b.tab();
    await expect(t1.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    const first = b.workerStore(0);
    t1.destroy();
    const t2 = b.tab();
    await expect(t2.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    expect(b.workerStore(0)).toBe(first);
    // The retirement armed when t1 left was called off by t2's hello.
    await new Promise((r) => setTimeout(r, grace + 300));
    expect(b.retired).toEqual([]);
    expect(b.workerStore(0)).toBe(first);
    expect(internalsOf(first).engine.stage).not.toBe("destroyed");
    expect(host.calls).toHaveLength(1);
  });
});
