/**
 * A worker file's `serveBrowserReplica({ connectPeers })` that returns no connection (an `async`
 * connector's promise, a plain object): the worker took it for one, and its destroy() and crash()
 * threw at `c.destroy()` before the doc was closed and the lock let go, so its retire (and the
 * devtools' crash) left the replica half-stopped. It is now refused as the worker's replica is
 * made, naming what came: every tab is told so and falls back to a replica of its own (its
 * `modeReason` says why; what it asked is pending until that replica answers), none is served
 * from a doc that reaches no other device, what the worker made is closed, and it retires once
 * the refused tabs are gone. Real ports, docs, stores and connectTabs; FakeLocks; fake-indexeddb.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";
import { Host } from "../../sim/host.ts";
import type { Connection } from "../../src/sync/connection.ts";
import { browser, until } from "./browser-sim.ts";

const API = "http://127.0.0.1:9/api/worker-connector-refused";
const REFUSED = "the SharedWorker refused this tab: shared-fetch worker: connectPeers must return a connection (or nothing), got ";

function answering() {
  const host = new Host();
  let n = 0;
  host.auto = () => ({ status: 200, body: { n: ++n } });
  return host;
}

/** A connection that reaches nobody (the devices' server out of reach): enough for a worker to serve. */
const quiet = (doc: Y.Doc): Connection => {
  const awareness = new Awareness(doc);
  return { whenSynced: Promise.resolve(), awareness, destroy: () => awareness.destroy() };
};

describe("a worker's connectPeers that returns no connection", () => {
  for (const [what, bad, kind] of [
    ["an async connector's promise", (doc: Y.Doc) => Promise.resolve(quiet(doc)), "a Promise"],
    ["a plain object", () => ({ url: "wss://sync.example.com" }), "an object"],
    ["a URL in place of a connection", () => "wss://sync.example.com?token=s3cret", '"wss://sync.example.com?…"'],
  ] as const)
    it(`(${what}) refuses every tab naming it; the tabs fall back, the worker's doc is closed, and its destroy throws nothing`, async () => {
      const host = answering();
      const docs: Y.Doc[] = [];
      const b = browser(host, { retireAfterMs: Infinity, connectPeers: ((doc: Y.Doc) => (docs.push(doc), bad(doc))) as never });
      const t1 = b.tab({ fetch: host.fetch });
      await expect(t1.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
      expect(t1.mode).toBe("tab");
      expect(t1.modeReason).toBe(REFUSED + kind);
      // A later tab is refused the same way: never served by a worker whose doc reaches no device.
      const t2 = b.tab({ fetch: host.fetch });
      await expect(t2.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
      expect(t2.modeReason).toBe(REFUSED + kind);
      expect(docs).toHaveLength(1);
      expect(docs[0]!.isDestroyed).toBe(true);
      const worker = b.workers.get(`shared-fetch:${b.name}:0`)!;
      expect(worker.stores()).toEqual([]);
      expect(() => worker.destroy()).not.toThrow();
      expect(host.calls).toHaveLength(1);
    });

  it("a connector that throws refuses every tab with its error, as one that returns no connection: no second generation", async () => {
    const host = answering();
    const docs: Y.Doc[] = [];
    const connectPeers = (doc: Y.Doc): Connection => {
      docs.push(doc);
      throw new Error("no sync server configured");
    };
    const b = browser(host, { retireAfterMs: Infinity, connectPeers: connectPeers as never });
    const t1 = b.tab({ fetch: host.fetch });
    await expect(t1.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    const t2 = b.tab({ fetch: host.fetch });
    await expect(t2.ensure({ url: API })).resolves.toMatchObject({ status: "success", data: { n: 1 } });
    for (const t of [t1, t2]) {
      expect(t.mode).toBe("tab");
      expect(t.modeReason).toBe("the SharedWorker refused this tab: no sync server configured");
    }
    // Called once, its doc closed: the second tab was refused too, not served from that doc nor by
    // a next generation started while no worker held the lock.
    expect(docs).toHaveLength(1);
    expect(docs[0]!.isDestroyed).toBe(true);
    expect(b.workers.has(`shared-fetch:${b.name}:1`)).toBe(false);
    expect(() => b.workers.get(`shared-fetch:${b.name}:0`)!.destroy()).not.toThrow();
    expect(host.calls).toHaveLength(1);
  });

  it("it retires once its refused tabs are gone (its destroy, in the retire timer, throws nothing)", async () => {
    const host = answering();
    const b = browser(host, { retireAfterMs: 20, connectPeers: ((doc: Y.Doc) => Promise.resolve(quiet(doc))) as never });
    const tab = b.tab({ fetch: host.fetch });
    await expect(tab.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    tab.destroy();
    await until(() => b.retired.includes(`shared-fetch:${b.name}:0`));
  });

  it("a standby whose connector returns a promise refuses the tabs at its promotion, serving none from a doc without devices", async () => {
    const host = answering();
    const docs: Y.Doc[] = [];
    // The first worker's connector works; the next generation's hands over a promise.
    const b = browser(host, {
      connectPeers: ((doc: Y.Doc) => (docs.push(doc), docs.length === 1 ? quiet(doc) : Promise.resolve(quiet(doc)))) as never,
    });
    const [t1, t2] = [b.tab({ fetch: host.fetch }), b.tab({ fetch: host.fetch })];
    for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    expect(t2.mode).toBe("shared-worker");
    await until(() => b.workers.has(`shared-fetch:${b.name}:1`));
    b.kill(0);
    await until(() => t1.mode === "tab" && t2.mode === "tab");
    for (const t of [t1, t2]) expect(t.modeReason).toBe(`${REFUSED}a Promise`);
    expect(docs[1]!.isDestroyed).toBe(true);
    expect(b.workers.get(`shared-fetch:${b.name}:1`)!.stores()).toEqual([]);
    // Their own replicas read what the dead worker recorded: no request again.
    for (const t of [t1, t2]) await expect(t.ensure({ url: API })).resolves.toMatchObject({ data: { n: 1 } });
    expect(host.calls).toHaveLength(1);
  });
});
