/**
 * Invariant 3b and invariant 9 as the panel shows them in SharedWorker mode (connectBrowser): a
 * claim of another device whose claimant went silent goes stale after its lease with no doc change
 * to tell. A panel on a per-tab store re-inspects at that moment; a tab's panel reads only the
 * inspections the worker posts, so the worker posts its store's verdict again then.
 */
import { expect, it } from "vitest";
import * as Y from "yjs";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { internalsOf, ROOT, TABLES } from "../../src/internals.ts";
import { browser, cleanup } from "../worker/browser-sim.ts";

const KEY = "peer-key".padEnd(64, "0");

/** Resolves once `check` holds, re-checked at each notification of the model; fails after `ms`. */
function seen(model: { subscribe(f: () => void): () => void }, check: () => boolean, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => (off(), clearTimeout(timer), resolve());
    const timer = setTimeout(() => (off(), reject(new Error(`never saw ${what}`))), ms);
    const off = model.subscribe(() => {
      if (check()) done();
    });
    if (check()) done();
  });
}

it("a silent claimant's claim shows stale (lease silence) in a tab's panel once its lease ran out, as the worker's store judges it (invariant 3b)", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: {} });
  const b = browser(host);
  const tab = b.tab();
  await tab.ensure({ url: "http://127.0.0.1:9/api/here" });
  const worker = b.workerStore();
  const model = createDevtoolsModel(tab, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  // A claim from a device that then went silent, as its sync would bring it (a 300 ms lease).
  const doc = internalsOf(worker).records.lanes.root.doc!;
  doc.transact(() => {
    const lane = new Y.Array<unknown>();
    const claim = {
      replicaId: "silent-peer",
      nonce: "n1",
      rev: 1,
      leaseMs: 300,
      label: "GET https://api.example.test/peer",
      kind: "fetch",
    };
    lane.push([{ t: TABLES.claims, k: KEY, v: claim, s: 1 }]);
    doc.getArray<unknown>(ROOT).push([lane]);
  });
  const row = () => model.getSnapshot().keys.find((k) => k.key === KEY);
  await seen(model, () => row()?.status === "pending", "the live claim");
  await seen(model, () => row()?.status === "stale", "the claim stale by its lease");
  expect(row()!.claim).toMatchObject({ replicaId: "silent-peer", stale: true, reason: "lease-silence", leaseExpired: true });
  expect(worker.inspect().keys.find((k) => k.key === KEY)!.claim).toMatchObject({ stale: true, reason: "lease-silence" });
  expect(model.getSnapshot().timeline.find((e) => e.type === "stale")).toMatchObject({ replicaId: "silent-peer", reason: "lease-silence" });
}, 20_000);
