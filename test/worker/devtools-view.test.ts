/**
 * The devtools on a tab's store in SharedWorker mode (connectBrowser): the model reads the
 * worker's inspection and a mirror of its doc through the port; its actions act on the worker.
 */
import { afterEach, expect, it } from "vitest";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { evictRecord, refetchKey } from "../../devtools/actions.ts";
import { Host } from "../../sim/host.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { internalsOf } from "../../src/internals.ts";
import { sharedWorkerHere } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/panel";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Resolves once `check` holds, re-checked after each notification of `source`. */
function until(source: { subscribe(f: () => void): () => void }, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const off = source.subscribe(() => {
      if (!check()) return;
      off();
      resolve();
    });
  });
}

it("the panel shows the worker's keys with the one replica's claim, and its refetch and evict reach the worker", async () => {
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const locks = new FakeLocks();
  const replica = createBrowserReplica({ locks: locks.forTab("w"), lockName: "w", fetch: host.fetch, store: { settleMs: 0 } });
  sharedWorkerHere();
  const store = connectBrowser({
    name: `panel-${process.pid}`,
    locks: locks.forTab("t"),
    worker: () => {
      const channel = new MessageChannel();
      replica.accept(channel.port2 as unknown as MessagePort);
      return { port: channel.port1 as unknown as MessagePort };
    },
  });
  cleanups.push(
    () => store.destroy(),
    () => replica.destroy(),
  );
  const unsubscribe = store.subscribe({ url: API }, () => {});
  cleanups.push(unsubscribe);
  await store.ensure({ url: API });
  const model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 });
  cleanups.push(() => model.destroy());
  await until(model, () => model.getSnapshot().keys.some((k) => k.key === store.keyOf({ url: API }) && k.status === "success"));
  expect(model.getSnapshot().replicaId).toBe(replica.stores()[0]!.replicaId);

  expect(refetchKey(store, store.keyOf({ url: API }))).toEqual({ ok: true });
  await host.whenCalls(2);
  await until({ subscribe: (f) => store.subscribe({ url: API }, f) }, () => store.resultInfo({ url: API })?.rev === 2);

  // Evict writes into the tab's mirror of the doc; the worker applies it, and the record is gone there.
  const key = store.keyOf({ url: API });
  await until(model, () => internalsOf(store).records.results.get(key)?.rev === 2);
  expect(evictRecord(store, key)).toEqual({ ok: true });
  const worker = replica.stores()[0]!;
  await new Promise<void>((resolve) => {
    const check = () => worker.resultInfo({ url: API }) === undefined;
    if (check()) return resolve();
    const off = worker.onInspect(() => check() && (off(), resolve()));
  });
  expect(worker.resultInfo({ url: API })).toBeUndefined();
});
