/**
 * The `joined` event in SharedWorker mode: the worker's store is the one replica of its tabs, so
 * two of its tabs asking for a key another replica of the browser (an old build's tab on
 * connectTabs) has in flight make one join, the worker's, which each tab's `onEvent` hears once;
 * a tab's panel tells it of the worker's replica. Real docs, stores, connectTabs; FakeLocks.
 */
import { expect, it, onTestFinished, vi } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { connectTabs, createSharedFetchStore, type StoreEvent } from "../../src/index.ts";
import { browser } from "./browser-sim.ts";

const opts = { timeout: 5000, interval: 10 };
const req = { url: "https://api.example.test/joined-by-worker" };

it("two tabs of one worker join another replica's request: one `joined`, the worker's, heard once by each tab and told by its panel", async () => {
  const host = new Host();
  const b = browser(host);
  const doc = new Y.Doc();
  const tabs = connectTabs(doc, { name: b.name, indexeddb: false });
  const old = createSharedFetchStore({ doc, awareness: tabs.awareness, fetch: host.fetch, settleMs: 10, locks: b.locks.forTab("old") });
  onTestFinished(() => (old.destroy(), tabs.destroy(), doc.destroy()));
  await tabs.whenSynced;
  old.ensure(req).catch(() => {});
  await vi.waitFor(() => expect(host.calls).toHaveLength(1), opts);

  const [t1, t2] = [b.tab(), b.tab()];
  const [heard1, heard2, fromWorker] = [[], [], []] as StoreEvent[][];
  t1.onEvent((e) => heard1!.push(e));
  t2.onEvent((e) => heard2!.push(e));
  onTestFinished(t1.subscribe(req, () => {}));
  const model = createDevtoolsModel(t1, { minNotifyIntervalMs: 0 });
  onTestFinished(() => model.destroy());
  await vi.waitFor(() => expect(t1.snapshot(req).claim?.replicaId).toBe(old.replicaId), opts);
  b.workerStore().onEvent((e) => fromWorker!.push(e));
  const asks = Promise.all([t1.ensure(req), t2.ensure(req)]);
  await vi.waitFor(() => expect(model.getSnapshot().timeline.some((e) => e.type === "joined")).toBe(true), opts);

  host.calls[0]!.respond(200, { one: true });
  await expect(asks).resolves.toMatchObject([{ data: { one: true } }, { data: { one: true } }]);
  expect(host.calls).toHaveLength(1);
  const worker = b.workerStore().replicaId;
  const join = { type: "joined", kind: "fetch", key: t1.keyOf(req), rev: 1, to: old.replicaId };
  for (const events of [fromWorker, heard1, heard2]) expect(events!.filter((e) => e.type === "joined")).toEqual([join]);
  expect(model.getSnapshot().timeline.filter((e) => e.type === "joined")).toMatchObject([{ replicaId: worker, to: old.replicaId, rev: 1 }]);
}, 15_000);
