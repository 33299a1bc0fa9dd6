/**
 * A worker file's `connectPeers` whose connection throws at destroy() (a provider already torn
 * down, an app's wrapper with a bug): the worker's retire, its destroy and the devtools' crash
 * called it before closing the rest, so the doc stayed open and the worker's lock was never let
 * go. A retired worker then never closed (onRetire came after) and held the lock with no tab: the
 * next tab found the browser's replica "alive" and was served by none. Each connection's destroy
 * now runs on its own: its error is reported on the console, and the doc, the lock and the
 * retirement go on. So in a tab that is its own replica: its destroy threw into the app's cleanup
 * with the tabs' channel and the doc still open. Real ports, docs, stores and connectTabs;
 * FakeLocks; fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import type { Connection } from "../../src/sync/connection.ts";
import { connectBrowser } from "../../src/worker/connect-browser.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/connector-destroy-throws";

function answering() {
  const host = new Host();
  let n = 0;
  host.auto = () => ({ status: 200, body: { n: ++n } });
  return host;
}

/** Reaches nobody, and throws when closed. */
const throwingAtDestroy =
  (docs: Y.Doc[]) =>
  (doc: Y.Doc): Connection => {
    docs.push(doc);
    const awareness = new Awareness(doc);
    return {
      whenSynced: Promise.resolve(),
      awareness,
      destroy: () => {
        awareness.destroy();
        throw new Error("provider already destroyed");
      },
    };
  };

afterEach(() => vi.restoreAllMocks());

describe("a worker whose connection throws at destroy", () => {
  it("retires once its tabs are gone: its doc closed, its lock let go, a later tab served by the next worker", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const host = answering();
    const docs: Y.Doc[] = [];
    const b = browser(host, { retireAfterMs: 20, connectPeers: throwingAtDestroy(docs) as never });
    const first = `shared-fetch:${b.name}:0`;
    const t1 = b.tab({ fetch: host.fetch });
    await expect(t1.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    expect(t1.mode).toBe("shared-worker");
    t1.destroy();
    await until(() => b.retired.includes(first));
    expect(docs[0]!.isDestroyed).toBe(true);
    expect(b.locks.heldBy(first)).toEqual([]);
    expect(String(errors.mock.calls.flat().join(" "))).toContain("provider already destroyed");
    const t2 = b.tab({ fetch: host.fetch });
    await expect(t2.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
    expect(t2.mode).toBe("shared-worker");
  });

  it("its destroy throws nothing and closes the doc and lets its lock go", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const host = answering();
    const docs: Y.Doc[] = [];
    const b = browser(host, { retireAfterMs: Infinity, connectPeers: throwingAtDestroy(docs) as never });
    const first = `shared-fetch:${b.name}:0`;
    const t1 = b.tab({ fetch: host.fetch });
    await expect(t1.ensure({ url: API })).resolves.toMatchObject({ status: "success" });
    expect(() => b.workers.get(first)!.destroy()).not.toThrow();
    expect(docs[0]!.isDestroyed).toBe(true);
    await until(() => b.locks.heldBy(first).length === 0);
  });
});

it("a tab replica whose connection throws at destroy: the tab's destroy throws nothing and closes its doc", async () => {
  vi.spyOn(console, "error").mockImplementation(() => {});
  const docs: Y.Doc[] = [];
  const tab = connectBrowser({ name: `connector-destroy-throws-${process.pid}`, connectPeers: throwingAtDestroy(docs) as never });
  await until(() => docs.length === 1);
  expect(tab.mode).toBe("tab");
  expect(() => tab.destroy()).not.toThrow();
  expect(docs[0]!.isDestroyed).toBe(true);
});
