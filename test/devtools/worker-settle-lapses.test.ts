/**
 * The settle window as a SharedWorker tab's panel shows it (connectBrowser). A timed window may end
 * by time alone, with no doc change: cut off from the sync server for longer than it, a claim made
 * now waits for nobody. A panel on a per-tab store looks again then; a tab's panel reads only the
 * inspections the worker posts, and the worker posted none at the window's end, so the panel kept
 * showing the window ("settling") long after it had passed.
 */
import { expect, it } from "vitest";
import { Awareness } from "y-protocols/awareness";
import { createDevtoolsModel } from "../../devtools/index.ts";
import { Host } from "../../sim/host.ts";
import { registerConnector } from "../../src/core/connectors.ts";
import { browser, cleanup, untilNotified } from "../worker/browser-sim.ts";

it("a window that lapses by time alone (cut off for longer than it) reads 'disconnected' in a tab's panel, as the worker's store judges it", async () => {
  const host = new Host();
  host.auto = () => ({ status: 200, body: {} });
  // The worker's sync server, with a measured trip that sizes a 1 s window; it goes down below.
  const down: { since?: number } = {};
  const b = browser(host, {
    store: {},
    connectPeers: (doc) => {
      const awareness = new Awareness(doc);
      const whenSynced = Promise.resolve();
      const info = { whenSynced, crossDevice: true, awareness, tripMs: () => 495, disconnectedSince: () => down.since };
      const off = registerConnector(doc, info);
      return { whenSynced, awareness, destroy: () => (off(), awareness.destroy()) };
    },
  });
  const tab = b.tab();
  await tab.ensure({ url: "http://127.0.0.1:9/api/here" });
  // Down from now: cut off for longer than the window once 1 s has passed, with no doc change.
  down.since = Date.now();
  const model = createDevtoolsModel(tab, { minNotifyIntervalMs: 0 });
  cleanup(() => model.destroy());
  const why = () => model.getSnapshot().settle?.why;
  await untilNotified(model, () => why() !== undefined, "the worker's first inspection");
  // Shown while the window runs: what the panel must not keep showing once it passed.
  expect(model.getSnapshot().settle).toEqual({ ms: 1000, eager: false, why: "measured-trip", tripMs: 495 });
  await untilNotified(model, () => why() === "disconnected", "the window lapsed");
  expect(model.getSnapshot().settle).toEqual({ ms: 0, eager: true, why: "disconnected" });
  expect(b.workerStore().inspect().settle).toEqual({ ms: 0, eager: true, why: "disconnected" });
}, 20_000);
