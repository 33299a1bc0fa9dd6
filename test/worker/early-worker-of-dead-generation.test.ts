/**
 * A tab starts the worker of the generation its localStorage names before it knows which one
 * lives (worker-link.ts, startEarly). Where a later generation lives (a takeover its read of
 * storage missed), it lets that early worker go without a word: a fresh worker of a dead
 * generation, which no tab would ever say hello to. It never counted down to retiring (only a
 * tab's coming and going started the count), so it idled for the life of the browser, one more
 * worker with its script and heap. A port's connecting now starts the count when no tab is there
 * (RETIRE_AFTER_MS at least: the hello comes once the tab holds its lock), and a hello stops it.
 * Real ports, docs and stores; FakeLocks; a stubbed localStorage.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { fakeStorage } from "../sync/boot-fakes.ts";
import { RETIRE_AFTER_MS } from "../../src/worker/browser-replica.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/early-dead-generation";
const RETIRE_MS = 100;

afterEach(() => void vi.unstubAllGlobals());

it("the early worker of a dead generation, let go once the tab finds a later one live, retires; the live worker and its standby serve on", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host, { retireAfterMs: RETIRE_MS });
  const storage = fakeStorage();
  vi.stubGlobal("localStorage", storage);
  const [t1, t2] = [b.tab(), b.tab()];
  for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  // The host tab's renderer dies with generation 0's worker: generation 1 (t2's standby) takes over.
  await until(() => b.workers.has(`shared-fetch:${b.name}:1`));
  b.kill(0);
  await expect(t1.refetch({ url: API })).resolves.toMatchObject({ status: "success" });
  // A tab that read localStorage before the survivors wrote the takeover starts generation 0 again.
  storage.items.set(`shared-fetch:worker-generation:${b.name}`, "0");
  const t3 = b.tab();
  await expect(t3.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(t3.mode).toBe("shared-worker");
  expect(b.workers.has(`shared-fetch:${b.name}:0`)).toBe(true);
  // Its count is RETIRE_AFTER_MS (a hello may take a while), longer than the tabs' retireAfterMs.
  await vi.waitUntil(() => b.retired.length > 0, { timeout: RETIRE_AFTER_MS + 5000, interval: 20 });
  expect(b.retired).toEqual([`shared-fetch:${b.name}:0`]);
  // The tabs' worker and the standby for it have tabs: they serve on.
  await new Promise((r) => setTimeout(r, RETIRE_MS * 3));
  expect(b.retired).toEqual([`shared-fetch:${b.name}:0`]);
  await expect(t3.refetch({ url: API })).resolves.toMatchObject({ status: "success" });
}, 20_000);

it("a cold worker with retireAfterMs 0 is not retired before its first tab's hello, which waits for the tab's lock", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host, { retireAfterMs: 0 });
  const base = b.locks.forTab("slow");
  // The tab's lifetime lock comes 200 ms late: its hello, after it, finds the worker connected long before.
  const locks: LockManagerLike = {
    ...base,
    request: (name, options, callback) =>
      name.startsWith("shared-fetch:tab:")
        ? new Promise((r) => setTimeout(r, 200)).then(() => base.request(name, options, callback))
        : base.request(name, options, callback),
  };
  const t = b.tab({ locks });
  await expect(t.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(t.mode).toBe("shared-worker");
  expect(b.retired).toEqual([]);
});
