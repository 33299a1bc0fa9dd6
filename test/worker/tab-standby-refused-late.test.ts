/**
 * A tab turns to the standby at the live worker's death only once it watches the standby's lock
 * (test/worker/tab-standby-watch-refused.test.ts). Web Locks answer that watch asynchronously: a
 * refusal may come after the tab has turned to the standby, its hello sent. The tab then relied on
 * a watch that never happened: if the standby died before it answered (one renderer held it), the
 * tab waited out the answer bound on a dead worker (invariant 8: pending for no reason). Pinned
 * here: the late refusal sends the tab to a fresh worker of the standby's generation, watched from
 * its hello, which answers its ask. Real ports, docs and stores; FakeLocks behind a front holding
 * the tab's watch of the standby's lock until the test refuses it; the answer bound set to Infinity.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { Host } from "../../sim/host.ts";
import type { LockManagerLike } from "../../src/core/locks.ts";
import type { PortLike } from "../../src/worker/port.ts";
import { STANDBY_LOCK_PREFIX } from "../../src/worker/protocol.ts";
import { browser, cleanup, holdingHello, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/tab-standby-refused-late";

it("invariant 8: a refusal of the standby's watch heard after the tab turned to it sends the tab to a fresh worker, not into the answer bound on a dead standby", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  cleanup(() => process.off("unhandledRejection", onUnhandled));
  const host = new Host();
  const b = browser(host);
  const real = b.locks.forTab("late");
  // The first watch of a standby's lock is answered only when the test refuses it.
  let refuse: (() => void) | undefined;
  const locks: LockManagerLike = {
    query: () => real.query(),
    request: (name, options, callback) =>
      name.startsWith(STANDBY_LOCK_PREFIX) && options.mode === "shared" && !refuse
        ? new Promise((_, reject) => (refuse = () => reject(new DOMException("The request was denied.", "SecurityError"))))
        : real.request(name, options, callback),
  };
  const gen1 = `shared-fetch:${b.name}:1`;
  let hello!: () => void;
  const helloSent = new Promise<void>((resolve) => (hello = resolve));
  let standbyPorts = 0;
  // The hello on the standby's port is never read: the standby dies before it answers the tab.
  const held = (port: PortLike): PortLike => {
    const inner = holdingHello(port, new Promise(() => {}));
    return { ...inner, postMessage: (m: unknown) => ((m as { t?: string }).t === "hello" && hello(), inner.postMessage(m)) };
  };
  // The first tab's page hosts the live worker; the second starts the standby.
  b.tab();
  const tab = b.tab({
    locks,
    workerTimeoutMs: Infinity,
    worker: (name) => {
      const worker = b.start(name);
      return name === gen1 && ++standbyPorts === 1 ? { port: held(worker.port) } : worker;
    },
  });
  const asked = tab.ensure({ url: API });
  asked.catch(() => {});
  await host.whenCalls(1);
  await until(() => refuse !== undefined);
  b.kill(0);
  // The tab turned to the standby (watched, as far as it knew) and said hello there.
  await helloSent;
  host.auto = () => ({ status: 200, body: { from: "a fresh worker" } });
  b.kill(1);
  refuse!();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { from: "a fresh worker" } });
  expect(tab.mode).toBe("shared-worker");
  expect(standbyPorts).toBe(2);
  expect(unhandled).toEqual([]);
});
