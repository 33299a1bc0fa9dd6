/**
 * A deploy while tabs are open: a browser runs one SharedWorker per script URL and name, so a tab
 * of the new build (its worker script at a new, hashed URL) starts a second worker of the live
 * generation's name beside the old build's. That worker waits for its lifetime lock, which the old
 * one holds for as long as the old build's tabs live: the new tab waited out the answer bound (5 s
 * with no data) and fell back saying only that the worker "did not answer". It now sees, when it
 * starts its probe (WORKER_PROBE_MS), the lock held and a worker of that name waiting for it (Web
 * Locks' query), and falls back then, naming the cause; its ask is answered from what the old
 * worker recorded (one request in all). Real ports, docs and stores (two replicas of one name);
 * FakeLocks; fake timers up to the probe.
 */
import "fake-indexeddb/auto";
import { afterEach, expect, it, vi } from "vitest";
import { Host } from "../../sim/host.ts";
import { createBrowserReplica, type BrowserReplica } from "../../src/worker/browser-replica.ts";
import { WORKER_PROBE_MS, WORKER_READY_MS } from "../../src/worker/worker-bounds.ts";
import { browser, cleanup, holdingHello } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/another-build";

afterEach(() => void vi.useRealTimers());

/** Resolves once `check` holds, looked at after each turn of the event loop (no timer: they are faked here). */
async function untilTrue(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setImmediate(r));
}

it(`a tab of a new deploy, whose worker waits behind the old build's worker of that name, falls back at WORKER_PROBE_MS (${WORKER_PROBE_MS} ms), not at WORKER_READY_MS (${WORKER_READY_MS} ms), naming why`, async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const old = b.tab();
  await expect(old.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });

  // The new build's script: a worker of its own per name, beside the old build's.
  const workers = new Map<string, BrowserReplica>();
  const started: string[] = [];
  const newBuild = (name: string) => {
    started.push(name);
    let replica = workers.get(name);
    if (!replica) {
      replica = createBrowserReplica({ locks: b.locks.forTab(`new:${name}`), lockName: name, fetch: host.fetch, store: { settleMs: 0 } });
      workers.set(name, replica);
      cleanup(() => replica!.destroy());
    }
    const channel = new MessageChannel();
    cleanup(() => (channel.port1.close(), channel.port2.close()));
    replica.accept(channel.port2 as unknown as MessagePort);
    return { port: channel.port1 as unknown as MessagePort };
  };
  const error = vi.spyOn(console, "error").mockImplementation(() => {});
  cleanup(() => error.mockRestore());
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const tab = b.tab({ worker: newBuild });
  const asked = tab.ensure({ url: API });
  // Its worker read the hello and asks for the lock the old build's holds.
  const gen0 = `shared-fetch:${b.name}:0`;
  await untilTrue(async () =>
    ((await b.locks.forTab("look").query()).pending ?? []).some((l) => l.name?.endsWith(gen0) && l.mode === "exclusive"),
  );
  await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS - 1);
  expect(tab.mode).toBe("shared-worker");
  await vi.advanceTimersByTimeAsync(1);
  await untilTrue(() => tab.mode === "tab");
  expect(tab.modeReason).toBe("another SharedWorker of this name (another build's script, at another URL) serves this browser's tabs");
  vi.useRealTimers();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(host.calls).toHaveLength(1);
  // The old build's tabs are served on, by the old build's worker.
  expect(old.mode).toBe("shared-worker");
  await expect(old.refetch({ url: API })).resolves.toMatchObject({ data: { v: 2 } });
  // And the fallen-back tab's replica hears their results as any tab replica does.
  await untilTrue(() => (tab.snapshot({ url: API }).data as { v?: number } | undefined)?.v === 2);
  expect(host.calls).toHaveLength(2);
});

it(`a tab whose own worker holds the lock, only slow to answer, while another build's worker waits behind it: the tab keeps waiting past WORKER_PROBE_MS (${WORKER_PROBE_MS} ms) and is served by its worker, one request`, async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { v: host.calls.length } });
  const b = browser(host);
  const first = b.tab();
  await expect(first.ensure({ url: API })).resolves.toMatchObject({ data: { v: 1 } });
  // Another build's worker of that name read its own tab's hello: it watches that tab's lock and
  // waits for the lifetime lock this build's worker holds.
  const gen0 = `shared-fetch:${b.name}:0`;
  const other = b.locks.forTab(`new:${gen0}`);
  void other.request("shared-fetch:tab:of-the-new-build", { mode: "shared" }, () => {});
  void other.request(`shared-fetch:worker:${gen0}`, { mode: "exclusive" }, () => new Promise(() => {}));
  // This build's worker is busy: it reads the tab's hello only once `open` settles.
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const started: string[] = [];
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const tab = b.tab({
    standby: false,
    worker: (name) => (started.push(name), { port: holdingHello(b.start(name).port, opened) }),
  });
  const asked = tab.ensure({ url: API });
  await untilTrue(() => started.length === 1);
  await vi.advanceTimersByTimeAsync(WORKER_PROBE_MS);
  // The probe started it again by its name, looked, and left it: the tab's own worker holds the lock.
  expect(started).toEqual([gen0, gen0]);
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  expect(tab.mode).toBe("shared-worker");
  vi.useRealTimers();
  open();
  await expect(asked).resolves.toMatchObject({ status: "success", data: { v: 1 } });
  expect(tab.mode).toBe("shared-worker");
  expect(host.calls).toHaveLength(1);
});
