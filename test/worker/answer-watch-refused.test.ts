/**
 * A tab watches, from its hello, the lock the generation it turned to holds, so that a worker
 * dying before it answers (its host tab crashed as this one opened) moves the tab on at once
 * (test/worker/worker-dies-before-answer.test.ts). Where Web Locks refused that watch (a broken
 * LockManager given as `locks`), the refusal was dropped: the worker's death went unheard and the
 * tab waited out the answer bound (5 s) with no data (invariant 8: pending for no reason). It now
 * gives up on workers at once, as for a refused watch of the lock `ready` names
 * (test/worker/worker-watch-refused.test.ts): a replica of its own without Web Locks, `modeReason`
 * naming the refusal, one console error. Real ports, docs and stores; FakeLocks behind a front
 * refusing the tab's watch of the worker's lock; the answer bound's timer faked and never run.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { WORKER_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup, holdingHello } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/answer-watch-refused";

afterEach(() => vi.useRealTimers());

it("invariant 8: a tab refused its watch of the worker's lock before `ready` gives up on workers at once, not at the answer bound, and answers its ask itself", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  cleanup(() => errors.mockRestore());
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const first = b.tab();
  await expect(first.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });
  const real = b.locks.forTab("refusing");
  let refused = 0;
  const locks: LockManagerLike = {
    query: () => real.query(),
    request: (name, options, callback) =>
      name.startsWith(WORKER_LOCK_PREFIX) && options.mode === "shared" && ++refused
        ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
        : real.request(name, options, callback),
  };
  // The live worker never reads the second tab's hello: it dies (its host tab crashed) unanswering.
  const never = new Promise<void>(() => {});
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const tab = b.tab({
    locks,
    standby: false,
    fetch: host.fetch,
    worker: (name) => {
      const worker = b.start(name);
      return { port: holdingHello(worker.port, never) };
    },
  });
  const asked = tab.refetch({ url: API });
  asked.catch(() => {});
  for (let i = 0; i < 50 && tab.mode !== "tab"; i++) await new Promise((r) => setImmediate(r));
  expect(refused).toBe(1);
  expect(tab.mode).toBe("tab");
  expect(tab.modeReason).toMatch(/^Web Locks refused to watch the SharedWorker's lock \(SecurityError/);
  vi.useRealTimers();
  b.kill(0);
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 2 } });
  expect(host.calls).toHaveLength(2);
  expect(errors).toHaveBeenCalledTimes(1);
  expect(unhandled).toEqual([]);
});
