/**
 * A tab turns to the standby worker at a takeover only once it watches the standby's lock: the
 * standby lives in another tab's renderer and may die with it, and that death, heard, sends the
 * tab to a fresh worker of the standby's generation at once (test/worker/standby-dies.test.ts).
 * Where the tab's Web Locks refuse that watch (a broken LockManager given as `locks`, refusing the
 * standby's lock), the standby is not watched: counted as watched, the tab turned to it at the
 * live worker's death, and if the standby had died too (one renderer held both), waited out the
 * answer bound, then became a replica of its own with a request of its own (invariant 8: pending
 * for no reason). Pinned here: the tab moves on at once to a fresh worker, as where there is no
 * standby. Real ports, docs and stores; FakeLocks behind a front refusing the tab's watch of a
 * standby's lock.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import { STANDBY_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/tab-standby-watch-refused";

it("invariant 8: a tab refused its watch of the standby's lock does not turn to that standby, dead with the live worker, but to a fresh worker at once", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const b = browser(new Host());
  const real = b.locks.forTab("refusing");
  let refused = 0;
  const locks: LockManagerLike = {
    query: () => real.query(),
    request: (name, options, callback) =>
      name.startsWith(STANDBY_LOCK_PREFIX) && options.mode === "shared" && ++refused
        ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
        : real.request(name, options, callback),
  };
  // The first tab's page hosts the live worker; the second starts the standby, unwatched.
  const tabs = [b.tab(), b.tab({ locks })];
  const asks = tabs.map((t) => t.ensure({ url: API }));
  await b.host.whenCalls(1);
  const gen1 = `shared-fetch:${b.name}:1`;
  const standbyHeld = async () => ((await b.locks.forTab("probe").query()).held ?? []).some((l) => l.name === STANDBY_LOCK_PREFIX + gen1);
  while (!(await standbyHeld()) || refused === 0) await new Promise((r) => setTimeout(r, 2));
  const standby = b.workers.get(gen1);
  // One renderer held both: the standby and the live worker die together.
  b.kill(1);
  b.kill(0);
  const calls = await b.host.whenCalls(2);
  await until(() => b.workers.has(gen1) && b.workers.get(gen1) !== standby);
  calls[1]!.respond(200, { from: "a fresh generation 1" });
  for (const ask of asks) await expect(ask).resolves.toMatchObject({ status: "success", data: { from: "a fresh generation 1" } });
  // A tab that waited out the answer bound on the dead standby became a replica of its own ("tab").
  expect(tabs.map((t) => t.mode)).toEqual(["shared-worker", "shared-worker"]);
  expect(b.host.calls).toHaveLength(2);
  expect(unhandled).toEqual([]);
});
