/**
 * connectBrowser's tab mode (no SharedWorker here, as in Chrome for Android, or a worker that
 * failed): the tab's own replica is a chunk loaded on demand, and what the tab asked meanwhile is
 * handed over to it. A program ask lost its freshness demand on the way (only its signal went):
 * useProgram's first fetch on a return visit (maxAgeMs: its staleTime, 0 by default) was answered
 * with the resolution IndexedDB held, however old, where a store of the tab's own re-resolves it.
 * Real docs, stores and connectTabs; fake-indexeddb; FakeLocks.
 */
import "fake-indexeddb/auto";
import { expect, it } from "vitest";
import { FakeLocks } from "../../sim/fake-locks.ts";
import { Host } from "../../sim/host.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { cleanup } from "./browser-sim.ts";

const MAIN = "http://127.0.0.1:9/app/handed-over.ts";

it("an ensureProgram asked before the tab's replica loaded keeps its maxAgeMs: yesterday's resolution in IndexedDB is redone, not shown as the answer", async () => {
  const host = new Host();
  let version = 1;
  host.auto = () => ({ status: 200, text: `export const v = ${version};\n` });
  const name = `handed-over-${process.pid}`;
  const visit = (tag: string) => {
    const store = connectBrowser({ name, fetch: host.fetch, locks: new FakeLocks().forTab(tag) });
    cleanup(() => store.destroy());
    expect(store.mode).toBe("tab");
    return store;
  };
  // The past visit resolved v1, which its doc persisted.
  const past = visit("past");
  await expect(past.ensureProgram({ url: MAIN })).resolves.toMatchObject({ status: "success" });
  past.destroy();
  version = 2;
  // The return visit asks at once (a first render), before its replica's chunk has loaded.
  const back = visit("back");
  const fresh = await back.ensureProgram({ url: MAIN }, { maxAgeMs: 0 });
  expect(fresh.data!.files[0]!.contents).toBe("export const v = 2;\n");
  expect(host.calls).toHaveLength(2);
});
