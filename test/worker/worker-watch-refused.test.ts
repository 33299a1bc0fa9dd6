/**
 * A tab served by the SharedWorker hears the worker's death by its Web Lock, which the tab watches
 * once the worker's `ready` names it: a MessagePort has no close event. Where Web Locks refuse that
 * watch (a broken LockManager given as `locks`, refusing what it is asked in shared mode), the tab
 * could never hear the worker die, and its asks would stay pending for good after a crash of the
 * worker's renderer (invariant 8). It becomes a replica of its own instead (README, "Fallback"),
 * `modeReason` naming the refusal, one console error, no rejection left unhandled. Real ports and
 * stores; FakeLocks behind a refusing front.
 */
import "fake-indexeddb/auto";
import { expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/worker-watch-refused";

it("invariant 8: a tab that may not watch its worker's lock becomes a replica of its own, and its asks are answered after the worker dies", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const warns = vi.spyOn(console, "warn").mockImplementation(() => {});
  cleanup(() => (errors.mockRestore(), warns.mockRestore()));
  const host = new Host();
  let n = 0;
  host.auto = () => ({ status: 200, body: { n: ++n } });
  const b = browser(host);
  const real = b.locks.forTab("page");
  const locks: LockManagerLike = {
    query: () => real.query(),
    request: (name, options, callback) =>
      options.mode === "shared"
        ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
        : real.request(name, options, callback),
  };
  const store = b.tab({ locks, standby: false, fetch: host.fetch });
  await expect(store.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
  await until(() => store.mode === "tab");
  expect(store.modeReason).toMatch(/^Web Locks refused to watch the SharedWorker's lock \(SecurityError/);
  b.kill(0);
  await expect(store.refetch({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 2 } });
  await new Promise((r) => setTimeout(r, 20));
  expect(errors).toHaveBeenCalledTimes(1);
  expect(unhandled).toEqual([]);
});
