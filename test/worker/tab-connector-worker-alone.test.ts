/**
 * connectBrowser's `connectPeers` connects a tab that is a replica of its own only: a function
 * cannot be posted to the SharedWorker. An app that passed it (and no `peers`) to tabs served by
 * the stock worker file reached no other device from any of them, silently. The worker now tells
 * each tab in its `ready` whether it reaches other devices; a tab given `connectPeers` whose worker
 * reaches none says so once on the console, naming what to do (the worker file's own connector).
 * A worker file that connects devices itself draws no warning. Real ports, docs and stores; FakeLocks.
 */
import "fake-indexeddb/auto";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import type { Connection } from "../../src/sync/connection.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/tab-connector-worker-alone";

/** A connection that reaches nobody (the devices' server out of reach): a connector all the same. */
const quiet = (doc: Y.Doc): Connection => {
  const awareness = new Awareness(doc);
  return { whenSynced: Promise.resolve(), awareness, destroy: () => awareness.destroy() };
};

function answering() {
  const host = new Host();
  host.auto = () => ({ status: 200, body: { ok: true } });
  return host;
}

const warnings = () => {
  const seen: string[] = [];
  const spy = vi.spyOn(console, "warn").mockImplementation((...args) => void seen.push(args.map(String).join(" ")));
  onTestFinished(() => spy.mockRestore());
  return seen.filter.bind(seen, (w) => w.includes("connectPeers"));
};

describe("a tab given connectPeers, served by a SharedWorker", () => {
  it("whose worker reaches no other device: the console says so once, naming the worker file's own connector, across a takeover too", async () => {
    const seen = warnings();
    const b = browser(answering());
    const [t1, t2] = [b.tab({ connectPeers: quiet }), b.tab()];
    for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { ok: true } });
    expect(t1.mode).toBe("shared-worker");
    expect(seen()).toEqual([
      "shared-fetch: connectBrowser's connectPeers connects only a tab that is a replica of its own; this tab's SharedWorker reaches no other device: give the worker file its own (serveBrowserReplica({ connectPeers }))",
    ]);
    // The next generation's worker says the same: no second warning from this store.
    await until(() => b.workers.has(`shared-fetch:${b.name}:1`));
    b.kill(0);
    await expect(t1.refetch({ url: API })).resolves.toMatchObject({ data: { ok: true } });
    expect(seen()).toHaveLength(1);
  });

  it("whose worker file connects other devices itself: no warning", async () => {
    const seen = warnings();
    const b = browser(answering(), { connectPeers: quiet });
    const tab = b.tab({ connectPeers: quiet });
    await expect(tab.ensure({ url: API })).resolves.toMatchObject({ data: { ok: true } });
    expect(tab.mode).toBe("shared-worker");
    expect(seen()).toEqual([]);
  });

  it("whose worker file's own connector connects nothing for this config (one connector for both, none for a signed-out user): no warning", async () => {
    // "(or nothing)": the worker reaches no device by the file's own choice, as the tab's own
    // replica would not with the same connector; the advice to give the worker file a connector
    // would be wrong.
    const seen = warnings();
    const connector = (doc: Y.Doc, config: { identity: string }) => (config.identity === "anonymous" ? undefined : quiet(doc));
    const b = browser(answering(), { connectPeers: connector });
    const tab = b.tab({ connectPeers: connector });
    await expect(tab.ensure({ url: API })).resolves.toMatchObject({ data: { ok: true } });
    expect(tab.mode).toBe("shared-worker");
    expect(seen()).toEqual([]);
  });
});
