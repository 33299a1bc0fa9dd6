/**
 * README, "One replica per browser (SharedWorker)": "At logout, `store.destroy()` in every tab, then
 * `await clearTabsStorage(name)`: the worker lets go of the database at once and retires 5 s after
 * its last tab left." The worker still lives when the tabs clear the storage: its IndexedDB
 * connection must not block the deletion until it retires, nor write the user's doc back after it.
 * Real ports, docs, stores and (fake-)IndexedDB; FakeLocks.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { clearTabsStorage } from "../../src/index.ts";
import { indexedDbText } from "../harness/indexeddb-text.ts";
import { browser, until } from "./browser-sim.ts";

afterEach(() => vi.restoreAllMocks());

const API = "http://127.0.0.1:9/api/logout";
const SECRET = "ALICE-PRIVATE-RESULT";

describe("logout in worker mode: destroy every tab's store, then clearTabsStorage(name)", () => {
  it("the deletion completes while the worker still lives, and nothing of the user's comes back into IndexedDB", async () => {
    const host = new Host();
    host.auto = () => ({ status: 200, body: { secret: SECRET } });
    // Longer than the test: the worker is alive throughout, as within the README's 5 s.
    const b = browser(host, { retireAfterMs: 60_000 });
    const [t1, t2] = [b.tab({ identity: "alice" }), b.tab({ identity: "alice" })];
    for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { secret: SECRET } });
    expect(t1.mode).toBe("shared-worker");
    // The worker persists the result (so the test shows the deletion removes something).
    while (!(await indexedDbText(b.name)).includes(SECRET)) await new Promise((r) => setTimeout(r, 10));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    t1.destroy();
    t2.destroy();
    let cleared = false;
    const clearing = clearTabsStorage(b.name).then(() => (cleared = true));
    await until(() => cleared);
    await clearing;
    expect(b.retired).toEqual([]);
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringContaining(`IndexedDB "${b.name}" is being deleted`)]);
    // The worker closing its doc and stores afterwards (as it does when it retires) writes nothing of Alice's back.
    for (const worker of b.workers.values()) worker.destroy();
    expect(await indexedDbText(b.name)).not.toContain(SECRET);
  });
});
