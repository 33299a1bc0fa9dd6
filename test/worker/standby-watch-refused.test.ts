/**
 * A standby worker queues on the live worker's lock, so that its grant (the live worker died)
 * promotes it at once, before any tab's hello. Where Web Locks refuse that watch (a broken
 * LockManager given to the worker as `locks`), the standby cannot hear that death, yet the tabs
 * do, each by its own watch of the live worker's lock (refused, the tab becomes a replica of its
 * own: test/worker/worker-watch-refused.test.ts), and each then says hello to the standby, which
 * promotes it (browser-replica.ts `open`). So the standby keeps standing: it is not promoted on
 * the refusal, which is no death (invariant 3: it would serve beside a live worker), nor does it
 * refuse the tabs, whose asks it still answers from its live doc; its takeover starts at the
 * first hello instead of at the death. Pinned here: no promotion while the live worker lives, and
 * a tab's ask in flight at its death answered by the promoted standby (invariant 8), 2 requests
 * in all. Real ports, docs and stores; FakeLocks behind a front that refuses generation 1's
 * watches of a worker's lock.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import { WORKER_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/standby-watch-refused";
const WARM = "http://127.0.0.1:9/api/standby-watch-refused-warm";

it("invariant 8: a standby refused its watch of the live worker's lock keeps standing, and the tabs' hellos promote it at that worker's death", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const host = new Host();
  host.auto = (call) => (call.url === WARM ? { status: 200, body: { warm: true } } : undefined);
  let refused = 0;
  const b = browser(host, {
    workerLocks: (workerName, real) =>
      workerName.endsWith(":1")
        ? {
            query: () => real.query!(),
            request: (name, options, callback) =>
              name.startsWith(WORKER_LOCK_PREFIX) && options.mode === "shared" && ++refused
                ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
                : real.request(name, options, callback),
          }
        : real,
  });
  const tabs = [b.tab({ fetch: host.fetch }), b.tab({ fetch: host.fetch })];
  // The second tab is served by generation 0 and starts generation 1's standby.
  await expect(tabs[1]!.ensure({ url: WARM })).resolves.toMatchObject({ status: "success" });
  const gen1 = `shared-fetch:${b.name}:1`;
  await until(() => b.workers.has(gen1) && refused > 0);
  const asked = tabs[1]!.ensure({ url: API });
  asked.catch(() => {});
  await host.whenCalls(2);
  // The standby waits on the live worker's claim for the ask the tab sent it in advance.
  await until(
    () =>
      b.workers
        .get(gen1)
        ?.stores()[0]
        ?.inspect()
        .keys.some((k) => (k.local?.waiters ?? 0) > 0) === true,
  );
  // Not promoted by the refusal: a promoted standby holds its generation's worker lock.
  const held = async () => ((await b.locks.forTab("probe").query()).held ?? []).map((l) => l.name);
  expect(await held()).not.toContain(WORKER_LOCK_PREFIX + gen1);
  expect(host.calls.filter((c) => c.url === API)).toHaveLength(1);
  b.kill(0);
  const [, , taken] = await host.whenCalls(3);
  taken!.respond(200, { taken: "over" });
  await expect(asked).resolves.toMatchObject({ status: "success", data: { taken: "over" } });
  expect(await held()).toContain(WORKER_LOCK_PREFIX + gen1);
  for (const tab of tabs) expect(tab.mode).toBe("shared-worker");
  expect(host.calls.filter((c) => c.url === API)).toHaveLength(2);
  expect(unhandled).toEqual([]);
});
