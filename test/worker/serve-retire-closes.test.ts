/**
 * serveBrowserReplica closes the SharedWorker once its replica retired (no tab left): a tab that
 * comes later starts a fresh worker. An `onRetire` the app passes is heard too, and `onRetire:
 * undefined` (what `{ onRetire: dev ? log : undefined }` gives) is no option at all. Before, either
 * replaced the close: the retired worker lived on with a destroyed replica, which closed every
 * port it was handed, so each later tab waited out its answer bound and ran a replica of its own.
 * An onRetire that is no function is still refused at the call, as createBrowserReplica refuses it.
 * Real ports, docs and stores; the worker scope's `connect` event and `close` are stand-ins.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { serveBrowserReplica } from "../../src/worker/serve-browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { cleanup, sharedWorkerHere, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/serve-retire";
const scope = globalThis as { addEventListener?: unknown; close?: unknown };

afterEach(() => {
  delete scope.addEventListener;
  delete scope.close;
});

/** SharedWorkers by name, each serveBrowserReplica in a scope of its own whose `close` is recorded. */
function workers(options: Parameters<typeof serveBrowserReplica>[0]) {
  sharedWorkerHere();
  const host = new Host();
  host.auto = () => ({ status: 200, body: { ok: true } });
  const locks = new FakeLocks();
  const closed: string[] = [];
  const started = new Map<string, (event: { ports: MessagePort[] }) => void>();
  const worker = (name: string) => {
    let connect = started.get(name);
    if (!connect) {
      scope.addEventListener = (_type: string, listener: typeof connect) => (connect = listener);
      scope.close = () => closed.push(name);
      const replica = serveBrowserReplica({
        ...options,
        locks: locks.forTab(name),
        lockName: name,
        fetch: host.fetch,
        store: { settleMs: 0 },
      });
      cleanup(() => replica.destroy());
      started.set(name, connect!);
    }
    const channel = new MessageChannel();
    connect!({ ports: [channel.port2 as unknown as MessagePort] });
    return { port: channel.port1 as unknown as MessagePort };
  };
  const tab = connectBrowser({ name: `serve-${process.pid}`, worker, locks: locks.forTab("tab") });
  cleanup(() => tab.destroy());
  return { tab, closed, started };
}

describe("serveBrowserReplica: the worker closes once its replica retired", () => {
  for (const [what, onRetire] of [
    ["onRetire: undefined", undefined],
    ["an onRetire of the app's", vi.fn()],
  ] as const)
    it(`with ${what}`, async () => {
      const { tab, closed, started } = workers({ retireAfterMs: 10, onRetire });
      await expect(tab.ensure({ url: API })).resolves.toMatchObject({ data: { ok: true } });
      expect(tab.mode).toBe("shared-worker");
      tab.destroy();
      // The worker, and the next generation's, standing by for it.
      await until(() => closed.length === started.size);
      expect(closed.sort()).toEqual([...started.keys()].sort());
      if (onRetire) expect(onRetire).toHaveBeenCalledTimes(started.size);
    });
});

describe("serveBrowserReplica's options", () => {
  it("an onRetire that is no function, or options that are none, are refused at the call, naming the value", () => {
    scope.addEventListener = () => {};
    for (const [options, message] of [
      [{ onRetire: "close" }, /`onRetire` must be a function when given, got "close"/],
      [null, /the options must be an object, got null/],
    ] as const)
      expect(() => serveBrowserReplica(options as never)).toThrow(message);
  });
});
