/**
 * A standby promoted at the live worker's death holds the worker's lock of its generation, which
 * the tabs watch once `ready` names it. Where Web Locks refuse that lock (a broken LockManager
 * given to the worker as `locks`), a warm standby had already served the tabs' asks, and the
 * hello's wait for the lock rejected: an unhandled rejection in the worker, no `ready`, and the
 * tabs waited out the answer bound. The tabs are told the refusal at once instead and become
 * replicas of their own (README, "Fallback"), as for a worker that could not open. Real ports,
 * docs and stores; FakeLocks behind a refusing front for generation 1's worker.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { STANDBY_LOCK_PREFIX, WORKER_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/promoted-lock-refused";

/** No unhandled rejection and console errors silenced, for this test. */
function watchRejections(): unknown[] {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  cleanup(() => errors.mockRestore());
  return unhandled;
}

/** Two tabs of a browser whose generation 1 worker is refused the lock `prefix` names; generation 1 stands by (or tried to). */
async function standbyRefused(prefix: string) {
  const host = new Host();
  let n = 0;
  host.auto = () => ({ status: 200, body: { n: ++n } });
  const b = browser(host, {
    workerLocks: (workerName, real) =>
      workerName.endsWith(":1")
        ? {
            query: () => real.query!(),
            request: (name, options, callback) =>
              name === prefix + workerName
                ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
                : real.request(name, options, callback),
          }
        : real,
  });
  const tabs = [b.tab({ fetch: host.fetch }), b.tab({ fetch: host.fetch })];
  await expect(tabs[0]!.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
  // The second tab started generation 1's standby.
  const gen1 = `shared-fetch:${b.name}:1`;
  await until(() => b.workers.has(gen1));
  const probe = b.locks.forTab("probe");
  const asked = async () => ((await probe.query()).pending ?? []).some((l) => l.name === WORKER_LOCK_PREFIX + `shared-fetch:${b.name}:0`);
  // It queued on the live worker's lock: its own is asked for (held, or refused) by then.
  while (!(await asked())) await new Promise((r) => setTimeout(r, 2));
  await new Promise((r) => setTimeout(r, 20));
  return { b, tabs };
}

it("a promoted standby refused its worker lock tells the tabs, which answer their asks as replicas of their own; no unhandled rejection", async () => {
  const unhandled = watchRejections();
  const { b, tabs } = await standbyRefused(WORKER_LOCK_PREFIX);
  b.kill(0);
  for (const tab of tabs) await until(() => tab.mode === "tab");
  for (const tab of tabs)
    expect(tab.modeReason).toMatch(/^the SharedWorker refused this tab: Web Locks refused the SharedWorker's lock \(SecurityError/);
  await expect(tabs[1]!.refetch({ url: API })).resolves.toMatchObject({ status: "success" });
  expect(unhandled).toEqual([]);
});

it("a standby refused its own lock never stands, and leaves no unhandled rejection; the tabs are served by a worker after the takeover", async () => {
  const unhandled = watchRejections();
  const { b, tabs } = await standbyRefused(STANDBY_LOCK_PREFIX);
  b.kill(0);
  await expect(tabs[1]!.refetch({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 2 } });
  for (const tab of tabs) expect(tab.mode).toBe("shared-worker");
  expect(unhandled).toEqual([]);
});
