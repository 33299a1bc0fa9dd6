/**
 * Invariant 14 across the SharedWorker's port: a peer may put a Yjs type (a Y.Map, a Y.Text, a
 * sub-document) where a lane or a record belongs. The worker's store lists it as malformed, and its
 * inspection goes to the tabs' devtools by postMessage, which cannot clone a Yjs type. The tab's
 * panel must still list the record and keep following the worker (it froze on what it last knew:
 * every later inspection failed to post: a DataCloneError).
 */
import { afterEach, expect, it, vi } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { ROOT } from "../../src/internals.ts";
import { linkDocs } from "../harness/doc-records.ts";
import { browser, cleanup, untilNotified as until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/y-type";
afterEach(() => vi.restoreAllMocks());

it("invariant 14: with a peer's Y.Map, Y.Text and sub-document in the worker's doc, a tab's panel keeps following the worker and lists them", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  const host = new Host();
  host.auto = (call) => ({ status: 200, body: { n: call.n } });
  const peer = new Y.Doc();
  // The worker's doc, synced with a peer as its connection to other devices would.
  const b = browser(host, { connectPeers: (doc) => (linkDocs(doc, peer), undefined) });
  const store = b.tab();
  cleanup(() => peer.destroy());
  await store.ensure({ url: API });
  const model = createDevtoolsModel(store, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  await until(model, () => model.getSnapshot().keys.some((k) => k.status === "success"), "the first result");

  const lane = new Y.Array<unknown>();
  lane.push([new Y.Map(), new Y.Text("x"), new Y.Doc()]);
  peer.getArray<unknown>(ROOT).push([lane, new Y.Map()]);
  const worker = b.workerStore();
  expect(worker.malformed()).toHaveLength(4);
  // Later work still reaches the panel: it follows the worker's inspections, which list them.
  await store.refetch({ url: API });
  await until(model, () => model.getSnapshot().keys.some((k) => k.status === "success" && k.result?.rev === 2), "the refetched result");
  expect(
    model
      .getSnapshot()
      .malformed.map((m) => m.reason)
      .sort(),
  ).toEqual([
    "entry is not a { t, k, v, s } record",
    "entry is not a { t, k, v, s } record",
    "entry is not a { t, k, v, s } record",
    "lane is not a Y.Array",
  ]);
  expect(model.getSnapshot().malformed.map((m) => m.value)).toEqual(Array(4).fill("<a Yjs type>"));
  expect(warn).not.toHaveBeenCalled();
});
