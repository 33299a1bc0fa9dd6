/**
 * Invariant 14: a malformed record is shown in devtools. Garbage that touches no record (an item of
 * the root that is no lane, a lane entry that is no record, a table no version has) changed no
 * table, so the store told no inspector of it: a SharedWorker tab's panel, which sees only what the
 * worker's inspections carry, did not list it until some record changed.
 */
import { expect, it } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { createSharedFetchStore } from "../../src/index.ts";
import { ROOT } from "../../src/internals.ts";
import { linkDocs } from "../harness/doc-records.ts";
import { browser, cleanup, untilNotified as until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/alone";

/** Garbage touching no record: a root item that is no lane, a shapeless entry, an unknown table. */
function writeLooseGarbage(peer: Y.Doc): void {
  const lane = new Y.Array<unknown>();
  lane.push([42, { t: "tables-of-v9", k: "x", v: 1, s: 1 }]);
  peer.getArray<unknown>(ROOT).push(["not a lane", lane]);
}

it("invariant 14: onInspect tells of malformed records that touch no record, and inspect() lists them", async () => {
  const doc = new Y.Doc();
  const peer = new Y.Doc();
  linkDocs(doc, peer);
  const store = createSharedFetchStore({ doc, fetch: new Host().fetch, locks: null });
  cleanup(() => store.destroy());
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
  const store = browser(host, { connectPeers: (doc) => (linkDocs(doc, peer), undefined) }).tab();
  await store.ensure({ url: API });
  const model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  await until(model, () => model.getSnapshot().keys.some((k) => k.status === "success"), "the result");
  writeLooseGarbage(peer);
  await until(model, () => model.getSnapshot().malformed.length === 3, "the three malformed records in the panel");
  expect(store.malformed()).toHaveLength(3);
});
