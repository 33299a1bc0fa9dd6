/**
 * Invariant 14: a malformed record is shown in devtools. Garbage that touches no record (an item of
 * the root that is no lane, a lane entry that is no record, a table no version has) changed no
 * table, so the store told no inspector of it: a SharedWorker tab's panel, which sees only what the
 * worker's inspections carry, did not list it until some record changed.
 */
import { afterEach, expect, it } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT } from "../../src/internals.ts";
import { createBrowserReplica } from "../../src/worker/browser-replica.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { linkDocs } from "../harness/doc-records.ts";
import { sharedWorkerHere } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/alone";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Garbage touching no record: a root item that is no lane, a shapeless entry, an unknown table. */
function writeLooseGarbage(peer: Y.Doc): void {
  const lane = new Y.Array<unknown>();
  lane.push([42, { t: "tables-of-v9", k: "x", v: 1, s: 1 }]);
  peer.getArray<unknown>(ROOT).push(["not a lane", lane]);
}

/** Resolves once `check` holds, re-checked after each notification of `source`; fails after 3 s. */
function until(source: { subscribe(f: () => void): () => void }, check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => (off(), reject(new Error(`never saw ${what}`))), 3000);
    const off = source.subscribe(() => {
      if (!check()) return;
      off();
      clearTimeout(timer);
      resolve();
    });
  });
}

it("invariant 14: onInspect tells of malformed records that touch no record, and inspect() lists them", async () => {
  const doc = new Y.Doc();
  const peer = new Y.Doc();
  linkDocs(doc, peer);
  const store = createSharedFetchStore({ doc, fetch: new Host().fetch, locks: null });
  cleanups.push(() => store.destroy());
  let told = 0;
  store.onInspect(() => told++);
  writeLooseGarbage(peer);
  await Promise.resolve();
  expect(told).toBe(1);
  expect(store.inspect().malformed.map((m) => m.reason)).toEqual([
    "lane is not a Y.Array",
    "entry is not a { t, k, v, s } record",
    'unknown table "tables-of-v9"',
  ]);
});

it("invariant 14: a SharedWorker tab's panel lists such records as they arrive, with nothing else changing", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { ok: true } });
  const peer = new Y.Doc();
  const locks = new FakeLocks();
  const replica = createBrowserReplica({
    locks: locks.forTab("w"),
    lockName: `alone-${process.pid}`,
    fetch: host.fetch,
    store: { settleMs: 0 },
    connectPeers: (doc) => (linkDocs(doc, peer), undefined),
  });
  sharedWorkerHere();
  const store = connectBrowser({
    name: `alone-${process.pid}`,
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
  await store.ensure({ url: API });
  const model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 });
  cleanups.push(() => model.destroy());
  await until(model, () => model.getSnapshot().keys.some((k) => k.status === "success"), "the result");
  writeLooseGarbage(peer);
  await until(model, () => model.getSnapshot().malformed.length === 3, "the three malformed records in the panel");
  expect(store.malformed()).toHaveLength(3);
});
