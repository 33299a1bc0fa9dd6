/**
 * A tab reaches the worker in two steps: its port connects (the worker accepts it), then, once
 * the tab holds its own lifetime lock, it says hello. A worker counting down to retiring (its
 * last tab left) retired in between: the new tab said hello to a closed worker, waited out its
 * answer bound and became a replica of its own for the life of the page. A connecting port now
 * restarts the count. Real ports, docs and stores; the tab's lock is granted when the test says,
 * the retirement's clock is faked.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { browser } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/retire-while-connecting";
const RETIRE_MS = 5000;

afterEach(() => void vi.useRealTimers());

/** The tab's locks, with its lifetime lock granted only once `grant` is called (its hello waits for it). */
function heldBack(base: LockManagerLike) {
  let grant!: () => void;
  const granted = new Promise<void>((resolve) => (grant = resolve));
  let asked!: () => void;
  const askedFor = new Promise<void>((resolve) => (asked = resolve));
  const locks: LockManagerLike = {
    ...base,
    request: (name, options, callback) => {
      if (!name.startsWith("shared-fetch:tab:")) return base.request(name, options, callback);
      asked();
      return granted.then(() => base.request(name, options, callback));
    },
  };
  return { locks, askedFor, grant };
}

it("the last tab left, a new tab's port connects just before the worker would retire and says hello just after: the worker serves it", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: 1 } });
  const b = browser(host, { retireAfterMs: RETIRE_MS });
  const t1 = b.tab();
  await expect(t1.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });
  const first = b.workerStore(0);
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  t1.destroy();
  // The worker hears of it (its tab lock, its bye) and counts down.
  await vi.waitUntil(() => vi.getTimerCount() > 0, { timeout: 5000, interval: 1 });
  vi.advanceTimersByTime(RETIRE_MS - 10);
  expect(b.retired).toEqual([]);

  const slow = heldBack(b.locks.forTab("late"));
  const t2 = b.tab({ locks: slow.locks });
  // The tab asks for its lock right after its port connected to the worker, before its hello.
  await slow.askedFor;
  vi.advanceTimersByTime(20);
  expect(b.retired).toEqual([]);

  vi.useRealTimers();
  slow.grant();
  await expect(t2.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(t2.mode).toBe("shared-worker");
  expect(b.workerStore(0)).toBe(first);
  expect(host.calls).toHaveLength(1);
});
